/*
 * A bucket's ownership and settings (issue 14): who owns it, its tenant, versioning, object lock,
 * lifecycle and the allowlisted tags (BUCKET_TAG_LABELS). Part of the bucket's record
 * (bucket-usage.ts imports the schema), kept here so the usage figures' fold stays apart.
 * Every value is bounded: they become label values of bucket_info and bucket_tag_info.
 */
import { type Static, Type } from '@sinclair/typebox'

/** The most characters a label value taken from the store may have (longer ones are cut). */
export const SETTING_VALUE_MAX_LENGTH = 256

const Value = Type.String({ maxLength: SETTING_VALUE_MAX_LENGTH })

/** S3's versioning states; `Off`: never enabled (S3 answers no Status). */
export const VERSIONING_STATES = ['Enabled', 'Suspended', 'Off'] as const
/** `Enabled`: the bucket was created with object lock; `Off`: it was not. */
export const OBJECT_LOCK_STATES = ['Enabled', 'Off'] as const
/** `Enabled`: at least one rule enabled; `Disabled`: rules, none enabled; `Off`: no configuration. */
export const LIFECYCLE_STATES = ['Enabled', 'Disabled', 'Off'] as const

export const BucketSettingsSchema = Type.Object({
  owner: Type.Optional(Value),
  tenant: Type.Optional(Value),
  versioning: Type.Optional(
    Type.Union([Type.Literal('Enabled'), Type.Literal('Suspended'), Type.Literal('Off')]),
  ),
  objectLock: Type.Optional(Type.Union([Type.Literal('Enabled'), Type.Literal('Off')])),
  lifecycle: Type.Optional(
    Type.Union([Type.Literal('Enabled'), Type.Literal('Disabled'), Type.Literal('Off')]),
  ),
  /** Allowlisted tags by label name (BUCKET_TAG_LABELS), values cut to SETTING_VALUE_MAX_LENGTH. */
  tags: Type.Optional(
    Type.Record(Type.String({ pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$' }), Value, { additionalProperties: false }),
  ),
})

export type BucketSettings = Readonly<Static<typeof BucketSettingsSchema>>

/** A value from the store, cut to a bounded label value (never inside a surrogate pair). */
export function boundedValue(value: string): string {
  if (value.length <= SETTING_VALUE_MAX_LENGTH) return value
  let end = SETTING_VALUE_MAX_LENGTH
  const last = value.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return value.slice(0, end)
}

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
