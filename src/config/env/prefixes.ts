import { Type } from '@sinclair/typebox'
import { DEFAULT_PREFIX_TOP_K, MAX_PREFIX_TOP_K } from './prefix-top-k.js'

/*
 * The prefix families' variables (issue 14, "where the bytes went"): read by the listing sources
 * (fs, s3), which fold bytes per key prefix; src/figures/prefixes/ measures them. Apart from
 * the scanner's other variables so a source declaration may import it without an import circle.
 */

/** What the prefix families measure (PREFIX_*), when they are on. */
export interface PrefixSettings {
  /** The prefix of a key ends just after its `depth`-th `delimiter`. */
  readonly depth: number
  readonly delimiter: string
  /** Prefixes served per bucket. */
  readonly topK: number
}

/** The variables as the configuration holds them. */
export interface PrefixVariables {
  readonly PREFIX_DEPTH: number
  readonly PREFIX_TOP_K: number
  readonly PREFIX_DELIMITER: string
}

/** PREFIX_* as the sources take them; undefined when PREFIX_DEPTH or PREFIX_TOP_K is 0 (off). */
export function prefixSettings(raw: PrefixVariables): PrefixSettings | undefined {
  if (raw.PREFIX_DEPTH === 0 || raw.PREFIX_TOP_K === 0) return undefined
  return { depth: raw.PREFIX_DEPTH, delimiter: raw.PREFIX_DELIMITER, topK: raw.PREFIX_TOP_K }
}

export const prefixesEnv = {
  PREFIX_DEPTH: Type.Integer({
    default: 1,
    minimum: 0,
    maximum: 32,
    description:
      '`fs`, `s3`, with the `prefixes` group of `BUCKET_METRICS`: report bytes and objects per key prefix ending at this many `PREFIX_DELIMITER`s (1: top-level folders; a key with fewer counts under the folder it is in, one with none under `_root`). 0: no prefix families.',
  }),
  PREFIX_TOP_K: Type.Integer({
    default: DEFAULT_PREFIX_TOP_K,
    minimum: 0,
    maximum: MAX_PREFIX_TOP_K,
    description:
      'Prefixes reported per bucket, the largest by bytes; the rest are summed as `prefix="_other"`. Each bucket tracks 8x this many while it is scanned (see docs/where-the-bytes-went.md). 0: no prefix families.',
  }),
  PREFIX_DELIMITER: Type.String({
    default: '/',
    minLength: 1,
    maxLength: 16,
    description:
      'What separates the levels of a key for `PREFIX_DEPTH` (`fs`: relative paths, joined by `/`).',
  }),
}
