/*
 * Bytes of a bucket's current objects per storage class, as the store lists them (s3; fs has no
 * classes). The names are bounded where they enter (names.ts); a sum of records keeps a count per
 * class, `_other` past the bound.
 */
import { describe, family } from '../../metrics/families.js'
import { sumProblem } from '../adds-up.js'
import { defineFigure } from '../types.js'
import { classKey, DEFAULT_STORAGE_CLASS, storageClassMap } from './names.js'

export const storageClass = defineFigure({
  name: 'storage-class',
  record: ({ Type, Count }) => ({
    /** Bytes of current objects per storage class (names.ts: the names and their bound). */
    storageClassBytes: Type.Optional(storageClassMap(Type, Count)),
  }),
  fold: ({ storageClasses }) => {
    if (!storageClasses) return undefined
    const bytes = new Map<string, number>()
    return {
      add: ({ size, storageClass }) => {
        const key = classKey(bytes, storageClass || DEFAULT_STORAGE_CLASS)
        bytes.set(key, (bytes.get(key) ?? 0) + size)
      },
      finish: () => ({ storageClassBytes: Object.fromEntries(bytes) }),
    }
  },
  combine: { storageClassBytes: { additive: true, says: 'bytes per storage class' } },
  invariant: ({ storageClassBytes }, { bytes }) =>
    sumProblem(storageClassBytes && Object.values(storageClassBytes), bytes, 'storageClassBytes', 'bytes'),
  example: { storageClassBytes: { STANDARD: 1 } },
  families: describe('usage', {
    bucket_storage_class_bytes: family(
      'gauge',
      ['bucket', 'storage_class'],
      'Bytes of current objects per storage class, as the store lists them (s3).',
      'storage_class',
    ),
  }),
  write: (out, bucket, { storageClassBytes }) => {
    for (const [storageClass, bytes] of Object.entries(storageClassBytes ?? {})) {
      out.set('bucket_storage_class_bytes', { bucket, storage_class: storageClass }, bytes)
    }
  },
  keepsPlace: { family: 'bucket_multipart_uploads_incomplete', property: 'storageClassAgeBytes' },
})
