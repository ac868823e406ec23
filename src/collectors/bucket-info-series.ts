/*
 * Ownership and settings of each bucket as info families (value 1, the facts in labels), for
 * `group_left` joins onto the per-bucket families: bucket_info and bucket_tag_info. Written from
 * the record's `settings` (src/record/bucket-settings.ts) by usage-series.ts.
 */
import { describe, family } from '../metrics/families.js'
import type { BucketIndex, BucketSettings } from '../record/bucket-settings.js'

export const bucketInfoFamilies = describe('usage', {
  bucket_info: family(
    'gauge',
    ['bucket', 'owner', 'tenant', 'versioning', 'object_lock', 'lifecycle'],
    'Ownership and settings of the bucket, always 1 (join with group_left). rgw: owner and tenant from the admin API. s3 with S3_BUCKET_SETTINGS: versioning Enabled/Suspended/Off, object_lock Enabled/Off, lifecycle Enabled/Disabled/Off. A label the source does not know is empty.',
    'info',
  ),
  bucket_tag_info: family(
    'gauge',
    ['bucket', 'tag', 'value'],
    'One allowlisted tag of the bucket (BUCKET_TAG_LABELS), always 1: tag is the label name the tag key maps to, value the tag value (at most 256 characters).',
    'info',
  ),
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
    name: 'bucket_info',
    labels: {
      readonly bucket: string
      readonly owner: string
      readonly tenant: string
      readonly versioning: string
      readonly object_lock: string
      readonly lifecycle: string
    },
    value: number,
  ): void
  set(name: 'bucket_tag_info', labels: { bucket: string; tag: string; value: string }, value: number): void
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

/** A bucket's info series: bucket_info when any setting is known, one bucket_tag_info per tag. */
export function writeBucketInfo(out: InfoSink, bucket: string, settings: BucketSettings): void {
  const { owner, tenant, versioning, objectLock, lifecycle, tags } = settings
  if ([owner, tenant, versioning, objectLock, lifecycle].some((value) => value !== undefined)) {
    out.set(
      'bucket_info',
      {
        bucket,
        owner: owner ?? '',
        tenant: tenant ?? '',
        versioning: versioning ?? '',
        object_lock: objectLock ?? '',
        lifecycle: lifecycle ?? '',
      },
      1,
    )
  }
  for (const [tag, value] of Object.entries(tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.set('bucket_tag_info', { bucket, tag, value }, 1)
  }
}
