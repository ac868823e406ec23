import { Type } from '@sinclair/typebox'
import { BucketUsageSchema } from '../record/bucket-usage-schema.js'
import { usageInvariantProblem } from '../record/record-invariants.js'
import { compareKeys } from '../sources/s3/key-ranges.js'
import type { BucketRecord } from './snapshot.js'

/*
 * A bucket record's per-range subtotals in the state file (format version 3, issue 25): their
 * schema and what a loaded record's subtotals must keep (sorted ranges, only the last open-ended,
 * each partial record possible, a summary that counts them).
 */

/** Ranges a bucket's subtotals may hold: at 10,000 a line is some 20 MB, under the line bound. */
const MAX_RANGES = 20_000

const Entries = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
export const RangeSummarySchema = Type.Object({
  ranges: Type.Integer({ minimum: 1, maximum: MAX_RANGES }),
  dirty: Type.Integer({ minimum: 0, maximum: MAX_RANGES }),
  relistedRatio: Type.Number({ minimum: 0, maximum: 1 }),
  oldestListedSeconds: Type.Number({ minimum: 0 }),
})
export const BucketRangesSchema = Type.Object({
  listing: Type.Union([Type.Literal('objects'), Type.Literal('versions')]),
  turn: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  subtotals: Type.Array(
    Type.Object({
      through: Type.Optional(Type.String({ maxLength: 4096 })),
      entries: Entries,
      listedMs: Type.Number({ minimum: 0 }),
      listedTurn: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      usage: BucketUsageSchema,
    }),
    { minItems: 1, maxItems: MAX_RANGES },
  ),
  relistedRanges: Type.Integer({ minimum: 0, maximum: MAX_RANGES }),
  relistedEntries: Entries,
  dirtyRanges: Type.Integer({ minimum: 0, maximum: MAX_RANGES }),
})

/** Why a record's subtotals cannot be the ranges of one bucket, or undefined. */
export function subtotalsProblem(record: BucketRecord): string | undefined {
  const { subtotals, ranges } = record
  if (subtotals === undefined) return undefined
  if (ranges?.ranges !== subtotals.subtotals.length) return '/ranges: not a summary of /subtotals'
  const list = subtotals.subtotals
  for (let index = 0; index < list.length; index++) {
    const { through, usage } = list[index] as (typeof list)[number]
    if ((through === undefined) !== (index === list.length - 1))
      return `/subtotals/subtotals/${index}/through: only the last range is open-ended`
    const before = list[index - 1]?.through
    if (through !== undefined && before !== undefined && compareKeys(before, through) >= 0)
      return `/subtotals/subtotals/${index}/through: ranges out of key order`
    const problem = usageInvariantProblem(usage)
    if (problem !== undefined) return `/subtotals/subtotals/${index}: ${problem}`
  }
  return undefined
}
