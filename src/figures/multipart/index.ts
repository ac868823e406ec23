/*
 * A bucket's incomplete multipart uploads: started and neither completed nor aborted, their
 * count and the oldest one's start (the `multipart` group, a default one: s3 asks the store with
 * ListMultipartUploads, rgw reads its rgw.multimeta counter), with the `hidden` group also the
 * bytes of their parts (ListParts) and the stale ones. No listing of objects gives them: a source
 * sets the record's `multipart` part whole (src/sources/s3/multipart.ts), so no fold step.
 */
import { describe, family } from '../../metrics/families.js'
import {
  HIDDEN_MULTIPART_COMBINE,
  HIDDEN_MULTIPART_EXAMPLE,
  hiddenMultipartProperties,
} from '../hidden/parts.js'
import { defineFigure } from '../types.js'

const ADDED = { additive: true } as const

export const multipart = defineFigure({
  name: 'multipart',
  record: ({ Type, Count, StoreSeconds }) => ({
    /** Present when the store lists multipart uploads. */
    multipart: Type.Optional(
      Type.Object({
        incomplete: Count,
        /** Initiation time of the oldest incomplete upload; absent when none. */
        oldestInitiatedSeconds: Type.Optional(StoreSeconds),
        /** The `hidden` group's: the bytes of the uploads' parts, the stale uploads. */
        ...hiddenMultipartProperties({ Type, Count }),
      }),
    ),
  }),
  combine: {
    multipart: {
      part: {
        incomplete: { ...ADDED, says: 'incomplete uploads' },
        oldestInitiatedSeconds: {
          additive: false,
          says: "the oldest upload's time",
          parts: 'the earlier',
          merge: (a, b) => Math.min(a, b),
        },
        ...HIDDEN_MULTIPART_COMBINE,
      },
    },
  },
  invariant: ({ multipart }) => {
    if (multipart === undefined) return undefined
    const { incomplete, stale, unsized, bytes, staleBytes } = multipart
    if ((stale ?? 0) > incomplete || (unsized ?? 0) > incomplete)
      return `/usage/multipart: more stale or unsized uploads than the ${incomplete} incomplete ones`
    if (staleBytes !== undefined && bytes !== undefined && staleBytes > bytes)
      return `/usage/multipart: stale uploads' ${staleBytes} bytes are more than all uploads' ${bytes}`
    return undefined
  },
  example: {
    multipart: { incomplete: 0, oldestInitiatedSeconds: 1, ...HIDDEN_MULTIPART_EXAMPLE },
  },
  families: describe('usage', {
    bucket_multipart_uploads_incomplete: family(
      'gauge',
      ['bucket'],
      "Multipart uploads started and neither completed nor aborted (s3, where the store lists them; rgw: RGW's rgw.multimeta counter).",
      'multipart',
    ),
    bucket_multipart_oldest_initiated_timestamp_seconds: family(
      'gauge',
      ['bucket'],
      'Initiation time of the oldest incomplete multipart upload, seconds since the epoch.',
      'multipart',
    ),
  }),
  write: (out, bucket, { multipart }) => {
    if (multipart === undefined) return
    out.set('bucket_multipart_uploads_incomplete', { bucket }, multipart.incomplete)
    if (multipart.oldestInitiatedSeconds !== undefined)
      out.set(
        'bucket_multipart_oldest_initiated_timestamp_seconds',
        { bucket },
        multipart.oldestInitiatedSeconds,
      )
  },
  keepsPlace: {
    family: 'usage_snapshot_age_seconds',
    property: {
      'multipart.incomplete': 'unreadableEntries',
      'multipart.bytes': 'unreadableEntries',
      'multipart.unsized': 'unreadableEntries',
      'multipart.stale': 'unreadableEntries',
      'multipart.staleBytes': 'unreadableEntries',
      'multipart.oldestInitiatedSeconds': 'quotaBytes',
    },
  },
})
