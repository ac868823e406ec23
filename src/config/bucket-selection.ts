/**
 * The syntax of the bucket selection variables, parsed once by the configuration:
 * BUCKETS_INCLUDE / BUCKETS_EXCLUDE glob patterns and SHARD=i/n. The scanner's bucket filter
 * (src/scanning/bucket-filter.ts) applies the parsed values.
 */

export class BucketFilterSyntaxError extends Error {}

/**
 * Compiles one glob to an anchored regular expression. Bucket names have no path separators, so
 * the syntax is the shell's for one name: `*` (any run), `?` (one character), `[abc]`, `[a-z]`,
 * `[!abc]` or `[^abc]` (a class), and `\x` for a literal x.
 */
export function compileGlob(pattern: string): RegExp {
  let source = ''
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string
    if (char === '*') source += '.*'
    else if (char === '?') source += '.'
    else if (char === '\\') {
      const next = pattern[++index]
      if (next === undefined) throw new BucketFilterSyntaxError(`"${pattern}" ends with a lone \\`)
      source += escapeRegExp(next)
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 2)
      if (close < 0) throw new BucketFilterSyntaxError(`unterminated [ in "${pattern}"`)
      source += compileClass(pattern.slice(index + 1, close), pattern)
      index = close
    } else source += escapeRegExp(char)
  }
  return new RegExp(`^${source}$`, 'u')
}

function compileClass(body: string, pattern: string): string {
  const negated = body.startsWith('!') || body.startsWith('^')
  const members = negated ? body.slice(1) : body
  if (members === '') throw new BucketFilterSyntaxError(`empty [] class in "${pattern}"`)
  let out = ''
  const chars = [...members]
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] as string
    const to = chars[index + 2]
    if (chars[index + 1] === '-' && to !== undefined) {
      if (to < char) throw new BucketFilterSyntaxError(`range ${char}-${to} runs backwards in "${pattern}"`)
      out += `${escapeClassChar(char)}-${escapeClassChar(to)}`
      index += 2
    } else out += escapeClassChar(char)
  }
  return `[${negated ? '^' : ''}${out}]`
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

function escapeClassChar(char: string): string {
  return /[\\\]^-]/.test(char) ? `\\${char}` : char
}

/** The non-blank entries of a comma-separated list, trimmed (BUCKETS). */
export function parseNameList(list: string): string[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
}

/** Splits a comma-separated list of globs and compiles each; blank entries are ignored. */
export function parseGlobList(list: string): RegExp[] {
  return parseNameList(list).map(compileGlob)
}

export interface Shard {
  /** 0-based index of this replica. */
  readonly index: number
  readonly count: number
}

const SHARD_SYNTAX = /^(\d+)\/(\d+)$/

/** Parses `i/n` (0 <= i < n); an empty string means no sharding. */
export function parseShard(text: string): Shard | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  const match = SHARD_SYNTAX.exec(trimmed)
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || count < 1 || index >= count || !Number.isSafeInteger(count)) {
    throw new BucketFilterSyntaxError('expected i/n with 0 <= i < n, for example 0/3')
  }
  return { index, count }
}
