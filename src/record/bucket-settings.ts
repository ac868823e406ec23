/*
 * A bucket's index sharding (rgw), part of the bucket's record (bucket-usage-schema.ts imports the
 * schema). Its ownership and settings are the info figure's (src/figures/info/).
 */
import { type Static, Type } from '@sinclair/typebox'

/** A bucket's index sharding, as RGW's `radosgw-admin bucket limit check` computes it (rgw). */
export const BucketIndexSchema = Type.Object({
  shards: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** Entries of every category (rgw.main, rgw.multimeta...) over the shards, rounded down as RGW does. */
  objectsPerShard: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** objectsPerShard / RGW_SAFE_MAX_OBJECTS_PER_SHARD (1 is full; above 1 is RGW's OVER). */
  fillRatio: Type.Number({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** RGW's `bucket limit check` states: OVER past 100 %, WARN from rgw_shard_warning_threshold. */
  fillStatus: Type.Union([Type.Literal('OK'), Type.Literal('WARN'), Type.Literal('OVER')]),
})

export type BucketIndex = Readonly<Static<typeof BucketIndexSchema>>
