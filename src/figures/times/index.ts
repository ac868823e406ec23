/*
 * The last-modified times of a bucket's newest and oldest current object (mtime for fs): how
 * fresh its data is, and how far back it goes. Absent for a bucket with no object the store
 * dated.
 */
import { describe, family } from '../../metrics/families.js'
import { defineFigure } from '../types.js'

export const times = defineFigure({
  name: 'times',
  record: ({ Type, StoreSeconds }) => ({
    /** Last-modified times of the newest and oldest current object. */
    newestModifiedSeconds: Type.Optional(StoreSeconds),
    oldestModifiedSeconds: Type.Optional(StoreSeconds),
  }),
  fold: () => {
    let newestMs = Number.NEGATIVE_INFINITY
    let oldestMs = Number.POSITIVE_INFINITY
    return {
      add: ({ modifiedMs }) => {
        if (modifiedMs > newestMs) newestMs = modifiedMs
        if (modifiedMs < oldestMs) oldestMs = modifiedMs
      },
      // No object, or none the store dated (NaN is never newer): no times.
      finish: () =>
        Number.isFinite(newestMs)
          ? { newestModifiedSeconds: newestMs / 1000, oldestModifiedSeconds: oldestMs / 1000 }
          : {},
    }
  },
  combine: {
    newestModifiedSeconds: {
      additive: false,
      says: 'the newest and oldest object times',
      parts: 'the later',
      merge: (a, b) => Math.max(a, b),
    },
    oldestModifiedSeconds: {
      additive: false,
      says: 'the newest and oldest object times',
      parts: 'the earlier',
      merge: (a, b) => Math.min(a, b),
    },
  },
  invariant: ({ newestModifiedSeconds: newest, oldestModifiedSeconds: oldest }) =>
    newest !== undefined && oldest !== undefined && newest < oldest
      ? `/usage: the newest object (${newest}) is older than the oldest (${oldest})`
      : undefined,
  example: { newestModifiedSeconds: 1, oldestModifiedSeconds: 1 },
  families: describe('usage', {
    bucket_newest_object_timestamp_seconds: family(
      'gauge',
      ['bucket'],
      'Last-modified time (mtime for fs) of the newest current object, seconds since the epoch.',
      'times',
    ),
    bucket_oldest_object_timestamp_seconds: family(
      'gauge',
      ['bucket'],
      'Last-modified time (mtime for fs) of the oldest current object, seconds since the epoch.',
      'times',
    ),
  }),
  write: (out, bucket, { newestModifiedSeconds, oldestModifiedSeconds }) => {
    if (newestModifiedSeconds !== undefined)
      out.set('bucket_newest_object_timestamp_seconds', { bucket }, newestModifiedSeconds)
    if (oldestModifiedSeconds !== undefined)
      out.set('bucket_oldest_object_timestamp_seconds', { bucket }, oldestModifiedSeconds)
  },
  keepsPlace: { family: 'bucket_storage_class_bytes', property: 'multipart.oldestInitiatedSeconds' },
})
