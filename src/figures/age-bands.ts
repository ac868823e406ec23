/**
 * Age bands: how long ago something happened (an object's last modification, a version's
 * replacement by its successor), measured against the scan's start time, in disjoint bands. The
 * `age` label values are stable: `lt_1d` is [0, 1 day), `lt_7d` is [1 day, 7 days), and so on;
 * `gte_365d` is a year or more. A time in the future (a skewed clock) counts as `lt_1d`; an
 * object without a time (no store gives none, but a page could) as `gte_365d`, so the bands
 * always sum to the bucket's total.
 */

const DAY_MS = 86_400_000

export const AGE_BANDS = [
  { name: 'lt_1d', days: 1 },
  { name: 'lt_7d', days: 7 },
  { name: 'lt_30d', days: 30 },
  { name: 'lt_90d', days: 90 },
  { name: 'lt_180d', days: 180 },
  { name: 'lt_365d', days: 365 },
  { name: 'gte_365d', days: Number.POSITIVE_INFINITY },
] as const

/** Each band's upper limit in ms, computed once: the fold compares numbers, per object, nothing more. */
const LIMITS_MS = Float64Array.from(AGE_BANDS, (band) => band.days * DAY_MS)
const OLDEST = AGE_BANDS.length - 1

/** The band of a time `thenMs` seen at `nowMs` (both ms since the epoch). */
export function ageSlot(nowMs: number, thenMs: number): number {
  const age = nowMs - thenMs
  // NaN compares false everywhere: an unknown time falls through to the oldest band.
  for (let slot = 0; slot < OLDEST; slot++) {
    if (age < (LIMITS_MS[slot] as number)) return slot
  }
  return OLDEST
}

/** Zeroed counts, one per band. */
export const ageCounts = (): number[] => new Array<number>(AGE_BANDS.length).fill(0)

/** Bytes and counts per band, folded one thing at a time. */
export class AgeFold {
  readonly bytes = ageCounts()
  readonly counts = ageCounts()

  add(slot: number, size: number): void {
    ;(this.bytes[slot] as number) += size
    ;(this.counts[slot] as number)++
  }
}
