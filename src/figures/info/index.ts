/*
 * A bucket's ownership and settings (issue 14): who owns it, its tenant, versioning, object lock,
 * lifecycle and the allowlisted tags (BUCKET_TAG_LABELS), as info families (value 1, the facts in
 * labels) for `group_left` joins onto the per-bucket families: bucket_info and bucket_tag_info.
 * No listing gives them: the source sets them whole on the record (rgw: owner and tenant from the
 * admin API; s3: S3_BUCKET_SETTINGS and BUCKET_TAG_LABELS requests), so no fold step; two parts of
 * one bucket carry the same. Every value is bounded (../label-values.ts): they become label values.
 */
import type { Static } from '@sinclair/typebox'
import { MAX_TAG_LABELS } from '../../config/env/tag-labels.js'
import { describe, family } from '../../metrics/families.js'
import type { MetricSink } from '../../metrics/metric-set.js'
import { SETTING_VALUE_MAX_LENGTH } from '../label-values.js'
import { defineFigure, type RecordParts, setWhole } from '../types.js'

/** S3's versioning states; `Off`: never enabled (S3 answers no Status). */
export const VERSIONING_STATES = ['Enabled', 'Suspended', 'Off'] as const
/** `Enabled`: the bucket was created with object lock; `Off`: it was not. */
export const OBJECT_LOCK_STATES = ['Enabled', 'Off'] as const
/** `Enabled`: at least one rule enabled; `Disabled`: rules, none enabled; `Off`: no configuration. */
export const LIFECYCLE_STATES = ['Enabled', 'Disabled', 'Off'] as const

function settingsSchema({ Type }: Pick<RecordParts, 'Type'>) {
  const Value = Type.String({ maxLength: SETTING_VALUE_MAX_LENGTH })
  return Type.Object({
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
      Type.Record(Type.String({ pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$' }), Value, {
        additionalProperties: false,
      }),
    ),
  })
}

export type BucketSettings = Readonly<Static<ReturnType<typeof settingsSchema>>>

const families = describe('usage', {
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
})

export const info = defineFigure({
  name: 'info',
  record: (parts) => ({
    /** Ownership and settings, where the source knows them. */
    settings: parts.Type.Optional(settingsSchema(parts)),
  }),
  combine: { settings: setWhole('the bucket info and tags', "either part's: the bucket's") },
  // The most a source gives: every setting and as many tags as BUCKET_TAG_LABELS may name.
  example: {
    settings: {
      owner: 'o',
      tenant: 't',
      versioning: 'Enabled',
      objectLock: 'Off',
      lifecycle: 'Enabled',
      tags: Object.fromEntries(Array.from({ length: MAX_TAG_LABELS }, (_, index) => [`tag_${index}`, 'v'])),
    },
  },
  families,
  write: (out, bucket, { settings }) => {
    if (settings) writeBucketInfo(out, bucket, settings)
  },
  keepsPlace: { family: 'bucket_index_shards', property: 'index' },
})

/** A bucket's info series: bucket_info when any setting is known, one bucket_tag_info per tag. */
export function writeBucketInfo(
  out: Pick<MetricSink<typeof families>, 'set'>,
  bucket: string,
  settings: BucketSettings,
): void {
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
