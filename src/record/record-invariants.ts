import { figureInvariantProblem } from '../figures/assemble.js'
import type { BucketUsage } from './bucket-usage.js'

/*
 * What the fold guarantees of a record's figures beyond each figure's bounds (bucket-usage.ts:
 * every object adds its size to `bytes`, one count to `objects` and to one slot of each
 * distribution, and is compared with the largest, newest and oldest). A stored record that breaks
 * one (0 objects of 1 PB, a largest object larger than its bucket, the newest object older than
 * the oldest) was not written by the fold: the state file's check refuses it, as it refuses a
 * figure out of range. Each rule applies to the figures the record has (rgw's have no
 * distributions).
 */

/** Why `usage` (each figure already within its bounds) cannot be what a fold gave, or undefined. */
export function usageInvariantProblem(usage: BucketUsage): string | undefined {
  const { bytes, objects } = usage
  if (objects === 0 && bytes > 0) return `/usage: ${objects} objects cannot hold ${bytes} bytes`
  return figureInvariantProblem(usage)
}
