/*
 * The bounds every figure a fold sums is held to: a size is a whole number of bytes, and a sum
 * stays exact in a double. Here, below the record, so that a figure's fold step checks its own
 * sums (the versions' noncurrent bytes) as the record's fold checks its bytes.
 */

/** A byte or object count a source may report: a non-negative safe integer (never NaN, -1, 1e300). */
export function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}

/**
 * The largest figure a record holds: 2^53 - 1 bytes (about 9 PB), the largest whole number a
 * double holds exactly. A bucket whose figures pass it is not measured (its scan fails with a
 * reason naming the limit), so what the fold, the state file and the exposition hold is exact;
 * docs/metrics.md says so.
 */
const MAX_FIGURE = Number.MAX_SAFE_INTEGER
const LIMIT_TEXT = `2^53 - 1 (${MAX_FIGURE} bytes, about 9 PB), the largest figure kept exactly`

/** A bucket whose figures pass MAX_FIGURE: it fails rather than be served rounded. */
export class FigureBeyondLimit extends RangeError {}

/** A whole number as it is, not as a double prints it (4611686018427388000 for 2^62). */
function shownWhole(value: number): string {
  return Number.isInteger(value) ? BigInt(value).toString() : String(value)
}

/** Sizes reach the fold only checked: one bad figure would make a bucket's total NaN. */
export function checkedSize(size: number): number {
  if (isCount(size)) return size
  if (Number.isInteger(size) && size > 0)
    throw new FigureBeyondLimit(`object size ${shownWhole(size)} bytes is beyond ${LIMIT_TEXT}`)
  throw new RangeError(`object size ${String(size)} is not a whole number of bytes`)
}

/** `sum` (a bucket's running total of `what`) if still exact; the bucket fails beyond the limit. */
export function checkedSum(sum: number, what: string): number {
  if (sum <= MAX_FIGURE) return sum
  throw new FigureBeyondLimit(`the bucket's ${what} pass ${LIMIT_TEXT}`)
}
