/*
 * How a bucket's current objects are sized: a histogram of their sizes (Prometheus bounds), the
 * count per MinIO size range, and the largest one (its key is never kept: it would be an unbounded
 * label). Every listing gives them (fs, s3); the `sizes` group of BUCKET_METRICS.
 */
import { sumProblem } from '../adds-up.js'
import { defineFigure } from '../types.js'
import { sizeFamilies, writeSizes } from './families.js'
import { MINIO_SIZE_RANGES, minioSizeSlot, OBJECT_SIZE_BOUNDS, sizeBoundSlot } from './ranges.js'

export const sizes = defineFigure({
  name: 'sizes',
  record: ({ Type, Count }) => ({
    /**
     * Current objects per OBJECT_SIZE_BOUNDS slot (not cumulative); one count more than there are
     * bounds, the last for sizes above the largest bound (+Inf). Its sum is `objects`.
     */
    sizeHistogram: Type.Optional(
      Type.Array(Count, { minItems: OBJECT_SIZE_BOUNDS.length + 1, maxItems: OBJECT_SIZE_BOUNDS.length + 1 }),
    ),
    /** Current objects per MINIO_SIZE_RANGES entry (disjoint ranges, MinIO's aggregate not included). */
    sizeRanges: Type.Optional(
      Type.Array(Count, { minItems: MINIO_SIZE_RANGES.length, maxItems: MINIO_SIZE_RANGES.length }),
    ),
    /** Size of the largest current object (its key is never kept: it would be an unbounded label). */
    largestObjectBytes: Type.Optional(Count),
  }),
  fold: () => {
    const histogram = new Array<number>(OBJECT_SIZE_BOUNDS.length + 1).fill(0)
    const ranges = new Array<number>(MINIO_SIZE_RANGES.length).fill(0)
    let largest = 0
    // As the times figure (src/figures/times/) does: the largest object is given when one was dated.
    let newestMs = Number.NEGATIVE_INFINITY
    return {
      add: ({ size, modifiedMs }) => {
        if (size > largest) largest = size
        ;(histogram[sizeBoundSlot(size)] as number)++
        ;(ranges[minioSizeSlot(size)] as number)++
        if (modifiedMs > newestMs) newestMs = modifiedMs
      },
      finish: () => ({
        sizeHistogram: [...histogram],
        sizeRanges: [...ranges],
        ...(Number.isFinite(newestMs) ? { largestObjectBytes: largest } : {}),
      }),
    }
  },
  combine: {
    sizeHistogram: { additive: true, says: 'the size histogram (buckets, `_sum`, `_count`)' },
    sizeRanges: { additive: true, says: 'the size distribution' },
    largestObjectBytes: {
      additive: false,
      says: 'the largest object',
      parts: 'the larger',
      merge: (a, b) => Math.max(a, b),
    },
  },
  invariant: ({ largestObjectBytes: largest, sizeHistogram, sizeRanges }, { bytes, objects }) => {
    if (largest !== undefined) {
      if (largest > bytes)
        return `/usage: the largest object (${largest} bytes) is larger than the bucket (${bytes})`
      if (objects * largest < bytes)
        return `/usage: ${objects} objects of at most ${largest} bytes cannot hold ${bytes} bytes`
    }
    return (
      sumProblem(sizeHistogram, objects, 'sizeHistogram', 'objects') ??
      sumProblem(sizeRanges, objects, 'sizeRanges', 'objects')
    )
  },
  // One object of one byte.
  example: {
    sizeHistogram: OBJECT_SIZE_BOUNDS.map((_, slot) => (slot === 0 ? 1 : 0)).concat(0),
    sizeRanges: MINIO_SIZE_RANGES.map((_, slot) => (slot === 0 ? 1 : 0)),
    largestObjectBytes: 1,
  },
  families: sizeFamilies,
  write: writeSizes,
  keepsPlace: {
    family: {
      bucket_objects_size_distribution: 'bucket_objects_version_distribution',
      bucket_object_size_bytes: 'bucket_newest_object_timestamp_seconds',
      bucket_largest_object_bytes: 'bucket_newest_object_timestamp_seconds',
    },
    property: {
      sizeHistogram: 'ageBytes',
      sizeRanges: 'ageBytes',
      largestObjectBytes: 'newestModifiedSeconds',
    },
  },
})
