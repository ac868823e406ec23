/*
 * Where the bytes went (issue 14): the prefix families, declared beside the code that writes them
 * from a bucket's record (BucketUsage.prefixes, folded by src/record/prefix-sketch.ts). Written
 * with the other per-bucket families by usage-series.ts; docs/where-the-bytes-went.md explains them.
 */
import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import { OTHER_PREFIX } from '../record/prefix-sketch.js'
import type { BucketUsage } from '../sources/types.js'

/** Bytes and objects per key prefix, the top PREFIX_TOP_K of each bucket and the rest as `_other`. */
export const prefixFamilies = describe('usage', {
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
})

/** The prefix rows (cut to the top K by the source), `_other` when cut, and the flags. */
export function writePrefixes(
  out: MetricSink<typeof prefixFamilies>,
  name: string,
  usage: BucketUsage,
): void {
  const figures = usage.prefixes
  if (!figures) return
  let bytes = 0
  let objects = 0
  for (const row of figures.rows) {
    out.set('bucket_prefix_usage_total_bytes', { bucket: name, prefix: row.prefix }, row.bytes)
    out.set('bucket_prefix_usage_objects', { bucket: name, prefix: row.prefix }, row.objects)
    bytes += row.bytes
    objects += row.objects
  }
  if (figures.cut) {
    // Never negative: tracked bytes sum to at most the bucket's (prefix-sketch.ts).
    const other = { bucket: name, prefix: OTHER_PREFIX }
    out.set('bucket_prefix_usage_total_bytes', other, Math.max(0, usage.bytes - bytes))
    out.set('bucket_prefix_usage_objects', other, Math.max(0, usage.objects - objects))
  }
  out.set('bucket_prefix_truncated', { bucket: name }, figures.cut ? 1 : 0)
  out.set('bucket_prefix_error_bytes', { bucket: name }, figures.errorBytes)
}
