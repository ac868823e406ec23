/**
 * The forms a secret value takes on its way out: as written, URL-encoded, JSON-escaped, hex, and
 * base64 or base64url inside a longer blob (a Basic header, a dump, a store's error document). Each
 * form is a sequence of positions, each the texts that may stand there; escapes (percent, JSON) are
 * added per character when the forms are compiled into one matcher (secret-redactor.ts).
 *
 * The rule for short secrets, so that ordinary words do not vanish from the logs:
 * - a secret shorter than MIN_SCRUBBED_LENGTH characters is not scrubbed from text at all (the
 *   logger's REDACT_PATHS still hide it in a credential field);
 * - its hex and base64 forms only when it has MIN_ENCODED_BYTES bytes or more: every such form then
 *   has at least 8 characters fixed by the secret alone, which no word or figure matches by chance;
 * - only its first MAX_SCRUBBED_LENGTH characters are matched (the matcher stays small; no
 *   configured secret is that long), so a longer value's remainder is left as it is.
 */

const MIN_SCRUBBED_LENGTH = 4
const MIN_ENCODED_BYTES = 8
export const MAX_SCRUBBED_LENGTH = 4096

/** The texts that may stand at one position of a form (a character, or a run of backslashes). */
export type Position = readonly string[]
export type SecretForm = readonly Position[]

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** Every form of every secret worth matching, computed once (at start) from the secret values. */
export function secretForms(secrets: readonly string[]): SecretForm[] {
  const forms: SecretForm[] = []
  for (const secret of new Set(secrets)) {
    if (secret.length < MIN_SCRUBBED_LENGTH) continue
    const bounded = [...secret.slice(0, MAX_SCRUBBED_LENGTH)]
    // Cutting at a code unit may split a pair: drop the lone half rather than match garbage.
    if (/[\uD800-\uDBFF]$/.test(bounded.at(-1) ?? '')) bounded.pop()
    const text = bounded.join('')
    forms.push(textForm(text))
    const bytes = Buffer.from(text)
    if (bytes.length < MIN_ENCODED_BYTES) continue
    forms.push(hexForm(bytes))
    for (const offset of [0, 1, 2]) forms.push(base64Form(bytes, offset))
  }
  return forms
}

/**
 * The secret as written, one position per character. A run of backslashes is one position: each
 * of them may be escaped once or twice, and as separate positions the combinations would make the
 * matcher backtrack exponentially over a long run of backslashes.
 */
function textForm(secret: string): SecretForm {
  const positions: string[][] = []
  for (const run of secret.match(/\\+|[\s\S]/gu) ?? []) positions.push([run])
  return positions
}

/** Hex of the UTF-8 bytes, each digit in lower or upper case. */
function hexForm(bytes: Uint8Array): SecretForm {
  return [...Buffer.from(bytes).toString('hex')].map((digit) => [...new Set([digit, digit.toUpperCase()])])
}

/**
 * The base64 (and base64url) characters the secret fixes when it starts `offset` bytes into a
 * 3-byte group of the encoded data. Character j covers bits [6j, 6j+6) of its group run; the
 * characters wholly inside the secret are fixed, the one or two at each edge share some bits with
 * the unknown neighbours and stand for the set of characters those bits allow. Padding is left.
 */
function base64Form(bytes: Uint8Array, offset: number): SecretForm {
  const firstBit = 8 * offset
  const endBit = 8 * (offset + bytes.length)
  const positions: string[][] = []
  for (let start = 0; start < endBit; start += 6) {
    let known = 0
    let value = 0
    for (let bit = 0; bit < 6; bit++) {
      const at = start + bit
      if (at < firstBit || at >= endBit) continue
      const byte = bytes[(at - firstBit) >> 3] ?? 0
      known |= 1 << (5 - bit)
      value |= ((byte >> (7 - ((at - firstBit) & 7))) & 1) << (5 - bit)
    }
    if (known === 0) continue
    const characters = new Set<string>()
    for (let candidate = 0; candidate < 64; candidate++)
      if ((candidate & known) === value)
        characters.add(BASE64[candidate] as string).add(BASE64URL[candidate] as string)
    positions.push([...characters])
  }
  return positions
}
