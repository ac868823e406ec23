/*
 * The sizes figure's families and how a bucket's record writes them (index.ts: the figure).
 */
import { describe, family } from '../../metrics/families.js'
import type { MetricSink } from '../../metrics/metric-set.js'
import type { RecordTotals } from '../types.js'
import { forEachMinioSizeRange, OBJECT_SIZE_BOUNDS } from './ranges.js'

export const sizeFamilies = describe('usage', {
  bucket_objects_size_distribution: family(
    'gauge',
    ['bucket', 'range'],
    'Current objects per MinIO size range (BETWEEN_1024B_AND_1_MB aggregates four others, as in MinIO).',
    'sizes',
  ),
  bucket_object_size_bytes: family(
    'gaugehistogram',
    ['bucket'],
    'Size of current objects in the bucket, as a gauge histogram (counts go down as objects go; OpenMetrics: gaugehistogram with _gsum/_gcount; text format: histogram; use histogram_quantile); bounds 1 KiB x 4^k up to 256 GiB.',
    'sizes',
  ),
  bucket_largest_object_bytes: family(
    'gauge',
    ['bucket'],
    'Size of the largest current object in the bucket (fs, s3: from the listing; the key is not exported).',
    'sizes',
  ),
})

interface SizeValues {
  readonly sizeHistogram?: readonly number[] | undefined
  readonly sizeRanges?: readonly number[] | undefined
  readonly largestObjectBytes?: number | undefined
}

/** A bucket's size series (the `_other` row's too: its counts are sums); the histogram's _sum and _count are the record's bytes and objects. */
export function writeSizes(
  out: MetricSink<typeof sizeFamilies>,
  name: string,
  { sizeHistogram, sizeRanges, largestObjectBytes }: SizeValues,
  { bytes, objects }: RecordTotals,
): void {
  const bucket = { bucket: name }
  if (sizeRanges) {
    forEachMinioSizeRange(sizeRanges, (range, count) => {
      out.set('bucket_objects_size_distribution', { bucket: name, range }, count)
    })
  }
  if (sizeHistogram) {
    let cumulative = 0
    const cumulativeCounts = OBJECT_SIZE_BOUNDS.map((_, slot) => {
      cumulative += sizeHistogram[slot] ?? 0
      return cumulative
    })
    out.histogram('bucket_object_size_bytes', bucket, {
      upperBounds: OBJECT_SIZE_BOUNDS,
      cumulativeCounts,
      sum: bytes,
      count: objects,
    })
  }
  if (largestObjectBytes !== undefined) out.set('bucket_largest_object_bytes', bucket, largestObjectBytes)
}
