/**
 * A bucket's index fill, computed as RGW's `radosgw-admin bucket limit check` does
 * (RGWBucketAdminOp::limit_check): the entries of every category summed, divided by the shards
 * (rounded down; 0 shards counts as one), then compared with `rgw_safe_max_objects_per_shard`
 * (default 102,400; dynamic resharding's `rgw_max_objs_per_shard` is another option) and
 * `rgw_shard_warning_threshold` (default 90 %). Those are RGW configuration the admin API does not
 * serve, so the exporter takes them as RGW_SAFE_MAX_OBJECTS_PER_SHARD and RGW_SHARD_WARNING_PERCENT.
 */
import type { BucketIndex } from '../../figures/index-shards/index.js'
import type { RgwBucketStats } from './stats.js'

export interface IndexLimits {
  readonly maxObjectsPerShard: number
  readonly warningPercent: number
}

export const DEFAULT_INDEX_LIMITS: IndexLimits = { maxObjectsPerShard: 100 * 1024, warningPercent: 90 }

export function indexFill(stats: RgwBucketStats, limits: IndexLimits): BucketIndex | undefined {
  if (stats.shards === undefined) return undefined
  let objects = 0
  for (const category of stats.usage.values()) objects += category.objects
  const objectsPerShard = stats.shards > 0 ? Math.floor(objects / stats.shards) : objects
  const percent = Math.floor((objectsPerShard * 100) / limits.maxObjectsPerShard)
  return {
    shards: stats.shards,
    objectsPerShard,
    fillRatio: objectsPerShard / limits.maxObjectsPerShard,
    fillStatus: percent > 100 ? 'OVER' : percent >= limits.warningPercent ? 'WARN' : 'OK',
  }
}
