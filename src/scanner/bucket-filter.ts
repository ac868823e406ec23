/**
 * Which buckets this exporter measures: BUCKETS_INCLUDE / BUCKETS_EXCLUDE glob patterns, then
 * SHARD=i/n, a stable hash that gives every bucket to exactly one of n replicas.
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

/** Splits a comma-separated list of globs and compiles each; blank entries are ignored. */
export function parseGlobList(list: string): RegExp[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map(compileGlob)
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

/**
 * FNV-1a (32 bits) of the name's UTF-8 bytes: stable across versions, platforms and restarts, so
 * a bucket stays with the same replica; documented so operators can compute it themselves.
 */
export function shardHash(name: string): number {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

export function shardOf(name: string, count: number): number {
  return shardHash(name) % count
}

export interface BucketFilterOptions {
  /** BUCKETS_INCLUDE: when non-empty, a bucket must match one of these. */
  readonly include: readonly RegExp[]
  /** BUCKETS_EXCLUDE: a bucket matching one of these is skipped (wins over include). */
  readonly exclude: readonly RegExp[]
  readonly shard?: Shard | undefined
}

export type BucketFilter = (name: string) => boolean

export function createBucketFilter(options: BucketFilterOptions): BucketFilter {
  const { include, exclude, shard } = options
  return (name) =>
    (include.length === 0 || include.some((glob) => glob.test(name))) &&
    !exclude.some((glob) => glob.test(name)) &&
    (shard === undefined || shardOf(name, shard.count) === shard.index)
}

/** The filter described by the configuration's variables (already validated at start-up). */
export function bucketFilterFromConfig(config: {
  readonly BUCKETS_INCLUDE: string
  readonly BUCKETS_EXCLUDE: string
  readonly SHARD: string
}): BucketFilter {
  return createBucketFilter({
    include: parseGlobList(config.BUCKETS_INCLUDE),
    exclude: parseGlobList(config.BUCKETS_EXCLUDE),
    shard: parseShard(config.SHARD),
  })
}
