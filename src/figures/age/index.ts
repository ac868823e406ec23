/*
 * Bytes and current objects per age band of their last-modified time (bands.ts), at the scan's
 * start, and bytes per storage class and band where the source lists classes: how much data has
 * not changed for a year. An opt-in group: a band per object is work the default groups skip.
 */
import { describe, family } from '../../metrics/families.js'
import { sumProblem } from '../adds-up.js'
import { classKey, DEFAULT_STORAGE_CLASS, storageClassMap } from '../storage-class/names.js'
import { defineFigure } from '../types.js'
import { AGE_BANDS, AGE_LABEL_HELP, AgeFold, ageCounts, ageSlot, forEachBand } from './bands.js'

export const age = defineFigure({
  name: 'age',
  record: ({ Type, Count }) => {
    /** One count per AGE_BANDS band, youngest first. */
    const AgeCounts = Type.Array(Count, { minItems: AGE_BANDS.length, maxItems: AGE_BANDS.length })
    return {
      /** Bytes and current objects per AGE_BANDS band of their last-modified time, at the scan's start. */
      ageBytes: Type.Optional(AgeCounts),
      ageObjects: Type.Optional(AgeCounts),
      /** Bytes of current objects per storage class and AGE_BANDS band. */
      storageClassAgeBytes: Type.Optional(storageClassMap(Type, AgeCounts)),
    }
  },
  // The `age` group (ages; default true); per class where the source knows classes.
  fold: ({ ages = true, storageClasses, nowMs }) => {
    if (!ages) return undefined
    const bands = new AgeFold()
    const classAges = storageClasses ? new Map<string, number[]>() : undefined
    return {
      add: ({ size, modifiedMs, storageClass }) => {
        const slot = ageSlot(nowMs, modifiedMs)
        bands.add(slot, size)
        if (classAges === undefined) return
        const key = classKey(classAges, storageClass || DEFAULT_STORAGE_CLASS)
        const counts = classAges.get(key) ?? ageCounts()
        ;(counts[slot] as number) += size
        classAges.set(key, counts)
      },
      finish: () => ({
        ageBytes: [...bands.bytes],
        ageObjects: [...bands.counts],
        ...(classAges ? { storageClassAgeBytes: Object.fromEntries(classAges) } : {}),
      }),
    }
  },
  combine: {
    ageBytes: { additive: true, says: 'bytes and objects per age band' },
    ageObjects: { additive: true, says: 'bytes and objects per age band' },
    storageClassAgeBytes: { additive: true, says: 'bytes per storage class and age band' },
  },
  invariant: ({ ageBytes, ageObjects }, { bytes, objects }) =>
    sumProblem(ageObjects, objects, 'ageObjects', 'objects') ??
    sumProblem(ageBytes, bytes, 'ageBytes', 'bytes'),
  // One object of one byte, a day old at most.
  example: {
    ageBytes: [1, 0, 0, 0, 0, 0, 0],
    ageObjects: [1, 0, 0, 0, 0, 0, 0],
    storageClassAgeBytes: { STANDARD: [1, 0, 0, 0, 0, 0, 0] },
  },
  families: describe('usage', {
    bucket_age_bytes: family(
      'gauge',
      ['bucket', 'age'],
      `Bytes of current objects by last-modified age band (fs: mtime; s3: LastModified from the listing; ${AGE_LABEL_HELP}).`,
      'age',
    ),
    bucket_age_objects: family(
      'gauge',
      ['bucket', 'age'],
      `Current objects by last-modified age band (fs: mtime; s3: LastModified from the listing; ${AGE_LABEL_HELP}).`,
      'age',
    ),
    bucket_storage_class_age_bytes: family(
      'gauge',
      ['bucket', 'storage_class', 'age'],
      `Bytes of current objects by storage class and last-modified age band (s3: from the listing; ${AGE_LABEL_HELP}).`,
      'age',
    ),
  }),
  write: (out, bucket, { ageBytes, ageObjects, storageClassAgeBytes }) => {
    if (ageBytes) forEachBand(ageBytes, (age, bytes) => out.set('bucket_age_bytes', { bucket, age }, bytes))
    if (ageObjects)
      forEachBand(ageObjects, (age, objects) => out.set('bucket_age_objects', { bucket, age }, objects))
    for (const [storageClass, counts] of Object.entries(storageClassAgeBytes ?? {})) {
      forEachBand(counts, (age, bytes) => {
        out.set('bucket_storage_class_age_bytes', { bucket, storage_class: storageClass, age }, bytes)
      })
    }
  },
  keepsPlace: { family: 'bucket_noncurrent_age_bytes', property: 'versions.versions' },
})
