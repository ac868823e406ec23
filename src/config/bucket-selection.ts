/**
 * The syntax of the bucket selection variables, parsed once by the configuration:
 * BUCKETS_INCLUDE / BUCKETS_EXCLUDE glob patterns (glob.ts) and SHARD=i/n. The scanner's bucket filter
 * (src/scanning/bucket-filter.ts) applies the parsed values.
 */

import { BucketFilterSyntaxError, compileGlob, type Glob } from './glob.js'

export { BucketFilterSyntaxError, compileGlob, type Glob, MAX_GLOB_LENGTH } from './glob.js'

/** The most patterns BUCKETS_INCLUDE or BUCKETS_EXCLUDE may list. */
export const MAX_GLOBS = 1000

/** The non-blank entries of a comma-separated list, trimmed (BUCKETS). */
export function parseNameList(list: string): string[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
}

/**
 * Splits a comma-separated list of globs and compiles each; blank entries are ignored. At most
 * MAX_GLOBS patterns of MAX_GLOB_LENGTH characters each: matching a name costs its length times a
 * pattern's, for every pattern.
 */
export function parseGlobList(list: string): Glob[] {
  const patterns = parseNameList(list)
  if (patterns.length > MAX_GLOBS)
    throw new BucketFilterSyntaxError(`${patterns.length} patterns (at most ${MAX_GLOBS})`)
  return patterns.map((pattern, index) => {
    try {
      return compileGlob(pattern)
    } catch (error) {
      if (!(error instanceof BucketFilterSyntaxError) || patterns.length === 1) throw error
      throw new BucketFilterSyntaxError(`pattern ${index + 1}: ${error.message}`)
    }
  })
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
