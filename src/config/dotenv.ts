import { readFileSync, statSync } from 'node:fs'

/** One assignment of a .env file: its value and the line it was on (1-based), for error lines. */
interface DotenvEntry {
  readonly value: string
  readonly line: number
}

export interface ParsedDotenv {
  readonly entries: ReadonlyMap<string, DotenvEntry>
  /** One line per malformed line ("line 4: ..."); a line's text is never shown, it may hold a secret. */
  readonly problems: readonly string[]
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' }

/**
 * Parses a .env file the way the common dotenv syntax reads: `NAME=value`, an optional `export `,
 * `#` comments (in an unquoted value only after whitespace, so a `#` inside a token is kept),
 * single quotes taken literally, double quotes with `\n`, `\t`, `\"` and `\\` escapes. A UTF-8
 * byte order mark and CRLF line ends are ignored; unquoted values lose surrounding whitespace.
 * Values span one line: an unclosed quote is a problem, not a value that swallows the next lines.
 * The last assignment of a name wins.
 */
export function parseDotenv(text: string): ParsedDotenv {
  const entries = new Map<string, DotenvEntry>()
  const problems: string[] = []
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const line = index + 1
    const trimmed = raw.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const assignment = ASSIGNMENT.exec(trimmed)
    if (!assignment) {
      problems.push(`line ${line}: expected NAME=value (a name of letters, digits and _)`)
      continue
    }
    const [, name = '', rest = ''] = assignment
    const value = parseValue(rest.trim())
    if (value === undefined) {
      problems.push(
        `line ${line}: ${name}: expected a quoted value closed on the same line, then nothing but a comment`,
      )
      continue
    }
    entries.set(name, { value, line })
  }
  return { entries, problems }
}

/** The value after `=`, trimmed; undefined when a quote is not closed or text follows it. */
function parseValue(text: string): string | undefined {
  const quote = text[0]
  if (quote !== '"' && quote !== "'") return text.replace(/(^|\s)#.*$/, '').trim()
  let value = ''
  let position = 1
  for (; position < text.length; position++) {
    const char = text[position] ?? ''
    if (char === quote) break
    if (quote === '"' && char === '\\' && position + 1 < text.length) {
      const next = text[position + 1] ?? ''
      value += ESCAPES[next] ?? `\\${next}`
      position++
    } else value += char
  }
  if (position >= text.length) return undefined
  const after = text.slice(position + 1).trim()
  return after === '' || after.startsWith('#') ? value : undefined
}

/** A .env file larger than this is refused rather than read (it is meant for a few dozen lines). */
const MAX_DOTENV_BYTES = 1024 * 1024

/**
 * The .env file's assignments; a missing file is none. One that is not a regular file (a folder,
 * a FIFO or /dev/zero would block or never end), is over MAX_DOTENV_BYTES or cannot be read is a
 * problem named by its path.
 */
export function readDotenv(path: string): ParsedDotenv {
  const refused = (reason: string): ParsedDotenv => ({ entries: new Map(), problems: [`${path}: ${reason}`] })
  let text: string
  try {
    const stats = statSync(path)
    if (!stats.isFile()) return refused('not a regular file; expected NAME=value lines')
    if (stats.size > MAX_DOTENV_BYTES)
      return refused(`larger than ${MAX_DOTENV_BYTES} bytes; expected NAME=value lines`)
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { entries: new Map(), problems: [] }
    return refused(`cannot be read (${code ?? String(error)})`)
  }
  const parsed = parseDotenv(text)
  return { entries: parsed.entries, problems: parsed.problems.map((problem) => `${path} ${problem}`) }
}
