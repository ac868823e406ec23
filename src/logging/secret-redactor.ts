import { type Position, type SecretForm, secretForms } from './secret-forms.js'

export const REDACTED = '[redacted]'

/**
 * Blanks every configured secret, in every form secret-forms.ts lists, out of a text: the one
 * redactor every output uses (each log entry, the landing page, the JSON API, `scan --once`).
 * Built once at start; redacting is one pass of one precompiled regular expression over the text,
 * however many secrets and forms there are.
 */
export interface SecretRedactor {
  /** Whether there is anything to redact (no secret long enough: `redact` returns its input). */
  readonly active: boolean
  redact(text: string): string
}

export function createSecretRedactor(secrets: readonly string[]): SecretRedactor {
  const forms = secretForms(secrets)
  if (forms.length === 0) return { active: false, redact: (text) => text }
  // Longest first: the alternation takes the first form that matches at a position, so a secret
  // containing another is replaced whole.
  const source = [...forms]
    .sort((a, b) => b.length - a.length)
    .map(formSource)
    .join('|')
  const matcher = new RegExp(source, 'g')
  return {
    active: true,
    redact: (text) => {
      matcher.lastIndex = 0
      return text.replace(matcher, REDACTED)
    },
  }
}

function formSource(form: SecretForm): string {
  return form.map(positionSource).join('')
}

/** One position: a class of the single characters, and an alternation of the longer escapes. */
function positionSource(position: Position): string {
  const variants = new Set<string>()
  for (const text of position) for (const variant of writtenAs(text)) variants.add(variant)
  const singles: string[] = []
  const longer: string[] = []
  for (const variant of variants) (variant.length === 1 ? singles : longer).push(variant)
  longer.sort((a, b) => b.length - a.length)
  const parts = longer.map(escapeRegExp)
  if (singles.length === 1) parts.push(escapeRegExp(singles[0] as string))
  else if (singles.length > 1) parts.push(`[${singles.map(escapeRegExp).join('')}]`)
  return parts.length === 1 ? (parts[0] as string) : `(?:${parts.join('|')})`
}

/**
 * How one character (or a run of backslashes, each written alike) may be written: as is and,
 * unless it is a letter or a digit (which no encoder changes), percent-encoded (its UTF-8 bytes,
 * upper or lower hex, once or twice: `%2F`, `%252f`; a space also as `+`) or JSON-escaped (`\/`,
 * `\"`, `\u002f`, `\u002F`), once or twice (a JSON text quoted in a log entry's JSON).
 */
function writtenAs(text: string): string[] {
  const character = String.fromCodePoint(text.codePointAt(0) ?? 0)
  const repeat = text.length / character.length
  if (/^[A-Za-z0-9]$/.test(character)) return [text]
  const bytes = [...Buffer.from(character)].map((byte) => byte.toString(16).padStart(2, '0'))
  const units = Array.from({ length: character.length }, (_, unit) =>
    character.charCodeAt(unit).toString(16).padStart(4, '0'),
  )
  const once = [
    character,
    ...inBothCases(bytes, (hex) => `%${hex}`),
    ...inBothCases(bytes, (hex) => `%25${hex}`),
    ...(character === ' ' ? ['+'] : []),
  ]
  const json = [
    JSON.stringify(character).slice(1, -1),
    ...(character === '/' ? ['\\/'] : []),
    ...inBothCases(units, (hex) => `\\u${hex}`),
  ]
  const twice = json.map((escaped) => JSON.stringify(escaped).slice(1, -1))
  return [...new Set([...once, ...json, ...twice])].map((variant) => variant.repeat(repeat))
}

/** `hexes` each written by `write`, joined: once in lower-case hex, once in upper. */
const inBothCases = (hexes: readonly string[], write: (hex: string) => string) => [
  ...new Set([hexes.map(write).join(''), hexes.map((hex) => write(hex.toUpperCase())).join('')]),
]

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
