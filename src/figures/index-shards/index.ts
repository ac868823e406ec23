/*
 * A bucket's index sharding and fill (rgw), as RGW's `radosgw-admin bucket limit check` computes
 * it (src/sources/rgw/index-fill.ts, from the admin API's bucket stats). No listing gives it: the
 * source sets it whole on the record, so no fold step; two parts of one bucket carry the same.
 */
import type { Static } from '@sinclair/typebox'
import { describe, family } from '../../metrics/families.js'
import type { MetricSink } from '../../metrics/metric-set.js'
import { defineFigure, type RecordParts, setWhole } from '../types.js'

function indexSchema({ Type }: Pick<RecordParts, 'Type'>) {
  return Type.Object({
    shards: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    /** Entries of every category (rgw.main, rgw.multimeta...) over the shards, rounded down as RGW does. */
    objectsPerShard: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    /** objectsPerShard / RGW_SAFE_MAX_OBJECTS_PER_SHARD (1 is full; above 1 is RGW's OVER). */
    fillRatio: Type.Number({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    /** RGW's `bucket limit check` states: OVER past 100 %, WARN from rgw_shard_warning_threshold. */
    fillStatus: Type.Union([Type.Literal('OK'), Type.Literal('WARN'), Type.Literal('OVER')]),
  })
}

export type BucketIndex = Readonly<Static<ReturnType<typeof indexSchema>>>

const families = describe('usage', {
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

export const indexShards = defineFigure({
  name: 'index-shards',
  record: (parts) => ({
    /** Index shards and their fill (rgw: the bucket stats' num_shards and counters). */
    index: parts.Type.Optional(indexSchema(parts)),
  }),
  combine: { index: setWhole('the index shards and fill', "either part's: the bucket's") },
  example: { index: { shards: 1, objectsPerShard: 0, fillRatio: 0, fillStatus: 'OK' } },
  families,
  write: (out, bucket, { index }) => {
    if (index) writeBucketIndex(out, bucket, index)
  },
  keepsPlace: { family: 'bucket_usage_log_ops_total', property: 'usageLog' },
})

/** A bucket's index shards and fill. */
function writeBucketIndex(out: MetricSink<typeof families>, bucket: string, index: BucketIndex): void {
  const labels = { bucket }
  out.set('bucket_index_shards', labels, index.shards)
  out.set('bucket_index_objects_per_shard', labels, index.objectsPerShard)
  out.set('bucket_index_fill_ratio', labels, index.fillRatio)
  out.set('bucket_index_fill_status', { bucket, status: index.fillStatus }, 1)
}
