import { eachInSlices } from '../event-loop-slices.js'
import type { BucketRecord } from '../snapshot/snapshot.js'
import { measuredBytes, measuredObjects } from '../snapshot/stored-records.js'

/** What a round's summary line says: objects and bytes of every bucket, and the buckets that failed. */
export async function roundTotals(
  buckets: readonly BucketRecord[],
): Promise<{ objects: number; bytes: number; failed: number }> {
  let [objects, bytes, failed] = [0, 0, 0]
  // In slices: at 100,000 buckets one pass holds the event loop (stored records decode their figures).
  await eachInSlices(buckets, (record) => {
    objects += measuredObjects(record) ?? 0
    bytes += measuredBytes(record) ?? 0
    if (!record.scanSuccess) failed++
  })
  return { objects, bytes, failed }
}
