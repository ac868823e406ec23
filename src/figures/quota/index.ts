/*
 * A bucket's quota in bytes, where the source knows one (rgw: an enabled bucket quota with a size
 * limit). No listing gives it: the source sets it whole on the record, so it has no fold step;
 * two parts of one bucket carry the same quota.
 */
import { describe, family } from '../../metrics/families.js'
import { defineFigure } from '../types.js'

export const quota = defineFigure({
  name: 'quota',
  record: ({ Type, Count }) => ({
    /** Present when the source knows a quota for the bucket. */
    quotaBytes: Type.Optional(Count),
  }),
  combine: {
    quotaBytes: {
      additive: false,
      says: 'the quota',
      parts: "the bucket's (a source sets it whole)",
      merge: (a) => a,
    },
  },
  example: { quotaBytes: 1 },
  families: describe('usage', {
    bucket_quota_total_bytes: family(
      'gauge',
      ['bucket'],
      'Bucket quota in bytes, where the source knows one (BUCKETS_SOURCE=rgw: an enabled RGW bucket quota with a size limit).',
      'quota',
    ),
  }),
  write: (out, bucket, { quotaBytes }) => {
    if (quotaBytes !== undefined) out.set('bucket_quota_total_bytes', { bucket }, quotaBytes)
  },
  keepsPlace: { family: 'bucket_objects_size_distribution', property: 'prefixes' },
})
