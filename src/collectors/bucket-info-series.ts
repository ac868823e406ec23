/*
 * A bucket's index shards and their fill (rgw), written from the record's `index`
 * (src/record/bucket-settings.ts) by usage-series.ts.
 */
import { describe, family } from '../metrics/families.js'
import type { BucketIndex } from '../record/bucket-settings.js'

export const bucketInfoFamilies = describe('usage', {
  bucket_index_shards: family(
    'gauge',
    ['bucket'],
    "Shards of the bucket's index (rgw: num_shards of the admin API's bucket stats).",
    'index',
  ),
  bucket_index_objects_per_shard: family(
    'gauge',
    ['bucket'],
    "Index entries per shard (rgw: every category's objects over the shards, rounded down, as radosgw-admin bucket limit check's objects_per_shard).",
    'index',
  ),
  bucket_index_fill_ratio: family(
    'gauge',
    ['bucket'],
    'Index entries per shard over RGW_SAFE_MAX_OBJECTS_PER_SHARD (rgw_safe_max_objects_per_shard, default 102,400): 1 is full, above 1 is OVER.',
    'index',
  ),
  bucket_index_fill_status: family(
    'gauge',
    ['bucket', 'status'],
    "RGW's fill status of the bucket's index, always 1: status OK, WARN (from RGW_SHARD_WARNING_PERCENT) or OVER (past 100 %), as radosgw-admin bucket limit check's fill_status.",
    'index',
  ),
})

interface InfoSink {
  set(
    name: 'bucket_index_shards' | 'bucket_index_objects_per_shard' | 'bucket_index_fill_ratio',
    labels: { readonly bucket: string },
    value: number,
  ): void
  set(name: 'bucket_index_fill_status', labels: { bucket: string; status: string }, value: number): void
}

/** A bucket's index shards and fill (rgw). */
export function writeBucketIndex(out: InfoSink, bucket: string, index: BucketIndex): void {
  const labels = { bucket }
  out.set('bucket_index_shards', labels, index.shards)
  out.set('bucket_index_objects_per_shard', labels, index.objectsPerShard)
  out.set('bucket_index_fill_ratio', labels, index.fillRatio)
  out.set('bucket_index_fill_status', { bucket, status: index.fillStatus }, 1)
}
