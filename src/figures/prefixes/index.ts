/*
 * Where the bytes went (issue 14): bytes and objects per key prefix (PREFIX_DEPTH, PREFIX_TOP_K,
 * PREFIX_DELIMITER), the top PREFIX_TOP_K of each bucket and the rest as `_other`, folded by a
 * bounded sketch (sketch.ts) from each object's prefix label (labels.ts).
 * docs/where-the-bytes-went.md explains the families.
 */
import { DEFAULT_PREFIX_TOP_K, MAX_PREFIX_TOP_K } from '../../config/env/prefix-top-k.js'
import { describe, family } from '../../metrics/families.js'
import { defineFigure } from '../types.js'
import { OTHER_PREFIX, PREFIX_LABEL_MAX_LENGTH } from './labels.js'
import { mergePrefixes, PrefixSketch, SKETCH_CAPACITY_FACTOR, sketchCapacity } from './sketch.js'

const MAX_TRACKED = MAX_PREFIX_TOP_K * SKETCH_CAPACITY_FACTOR

export const prefixes = defineFigure({
  name: 'prefixes',
  record: ({ Type, Count }) => ({
    /** Bytes and objects by key prefix (PREFIX_DEPTH), when on and the source lists keys (sketch.ts: PrefixFigures). */
    prefixes: Type.Optional(
      Type.Object({
        /** Largest bytes first (equal bytes: by prefix); at most the sketch's capacity, PREFIX_TOP_K once served. */
        rows: Type.Array(
          Type.Object({
            prefix: Type.String({ minLength: 1, maxLength: PREFIX_LABEL_MAX_LENGTH }),
            bytes: Count,
            objects: Count,
          }),
          { maxItems: MAX_TRACKED },
        ),
        /** Prefixes tracked while folding; two partial figures merge keeping this many. */
        capacity: Type.Integer({ minimum: 1, maximum: MAX_TRACKED }),
        /** Bound on any row's overestimate and on any prefix not in `rows`; 0: every figure exact. */
        errorBytes: Count,
        /** The bucket had more prefixes than `rows` holds: the rest are the `_other` row. */
        cut: Type.Boolean(),
      }),
    ),
  }),
  // PREFIX_TOP_K when prefixes are measured: each object then names its prefix.
  fold: ({ prefixTopK }) => {
    if (!prefixTopK) return undefined
    const sketch = new PrefixSketch(sketchCapacity(prefixTopK))
    return {
      add: ({ size, prefix }) => {
        if (prefix !== undefined) sketch.add(prefix, size)
      },
      addToPrefix: (prefix, bytes, objects) => sketch.add(prefix, bytes, objects),
      // Every tracked prefix, so partial folds still merge; the source cuts them to the top K.
      finish: () => ({ prefixes: sketch.figures() }),
    }
  },
  combine: {
    prefixes: {
      additive: false,
      says: "the prefix rows (one bucket's key space: `logs/` of two buckets are not one prefix)",
      parts: 'the sketches merged (sketch.ts)',
      merge: (a, b) => mergePrefixes(a, b),
    },
  },
  // More prefixes than PREFIX_TOP_K's default, so the `_other` row too.
  example: {
    prefixes: {
      rows: Array.from({ length: DEFAULT_PREFIX_TOP_K }, (_, index) => ({
        prefix: `p${index}/`,
        bytes: 0,
        objects: 0,
      })),
      capacity: sketchCapacity(DEFAULT_PREFIX_TOP_K),
      errorBytes: 0,
      cut: true,
    },
  },
  families: describe('usage', {
    bucket_prefix_usage_total_bytes: family(
      'gauge',
      ['bucket', 'prefix'],
      'Bytes of current objects per key prefix at PREFIX_DEPTH (fs: folders), the PREFIX_TOP_K largest; prefix="_other": the rest, "_root": keys with no PREFIX_DELIMITER. Rows sum to bucket_usage_total_bytes; see bucket_prefix_error_bytes.',
      'prefixes',
    ),
    bucket_prefix_usage_objects: family(
      'gauge',
      ['bucket', 'prefix'],
      'Current objects per key prefix, for the rows of bucket_prefix_usage_total_bytes; when bucket_prefix_error_bytes > 0, the objects counted while the prefix was tracked (a lower bound).',
      'prefixes',
    ),
    bucket_prefix_truncated: family(
      'gauge',
      ['bucket'],
      'Whether the bucket had more prefixes than PREFIX_TOP_K (1: the rest are the prefix="_other" row).',
      'prefixes',
    ),
    bucket_prefix_error_bytes: family(
      'gauge',
      ['bucket'],
      'Most bytes any prefix row may overstate (0: exact). Above 8 x PREFIX_TOP_K distinct prefixes the rows are Space-Saving estimates; this is at most the bucket bytes / (8 x PREFIX_TOP_K).',
      'prefixes',
    ),
  }),
  // The rows (cut to the top K by the source), `_other` when cut, and the flags.
  write: (out, bucket, { prefixes }, totals) => {
    if (!prefixes) return
    let bytes = 0
    let objects = 0
    for (const row of prefixes.rows) {
      out.set('bucket_prefix_usage_total_bytes', { bucket, prefix: row.prefix }, row.bytes)
      out.set('bucket_prefix_usage_objects', { bucket, prefix: row.prefix }, row.objects)
      bytes += row.bytes
      objects += row.objects
    }
    if (prefixes.cut) {
      // Never negative: tracked bytes sum to at most the bucket's (sketch.ts).
      const other = { bucket, prefix: OTHER_PREFIX }
      out.set('bucket_prefix_usage_total_bytes', other, Math.max(0, totals.bytes - bytes))
      out.set('bucket_prefix_usage_objects', other, Math.max(0, totals.objects - objects))
    }
    out.set('bucket_prefix_truncated', { bucket }, prefixes.cut ? 1 : 0)
    out.set('bucket_prefix_error_bytes', { bucket }, prefixes.errorBytes)
  },
  keepsPlace: { family: 'bucket_info', property: 'settings' },
})
