import type { Logger } from 'pino'
import { eachInSlices } from '../event-loop-slices.js'
import type { BucketRecord } from '../snapshot/snapshot.js'
import { measuredBytes, measuredObjects } from '../snapshot/stored-records.js'

/** What a round's summary line says: objects and bytes of every bucket, and the buckets that failed. */
async function roundTotals(
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

/** What the round's one summary line says besides its totals. */
export interface RoundSummary {
  readonly buckets: readonly BucketRecord[]
  readonly durationSeconds: number
  /** Requests the round sent; undefined for a source that sends none (fs). */
  readonly requests: number | undefined
  readonly sourceUp: boolean
  /** Why the source failed the round; undefined when up. */
  readonly error: string | undefined
}

/** At info: the one line that says a round happened and what it found (new buckets appear now). */
export async function logRoundFinished(logger: Logger, summary: RoundSummary): Promise<void> {
  const { buckets, durationSeconds, requests, sourceUp, error } = summary
  const { objects, bytes, failed } = await roundTotals(buckets)
  logger.info(
    {
      buckets: buckets.length,
      objects,
      bytes,
      durationSeconds,
      ...(requests === undefined ? {} : { requests }),
      failed,
      sourceUp,
      ...(error ? { error } : {}),
    },
    'usage scan finished',
  )
}
