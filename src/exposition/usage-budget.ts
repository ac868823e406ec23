/*
 * The cardinality budget of the per-bucket families, applied where a snapshot is rendered (once
 * per snapshot, usage-render.ts and its worker): BUCKET_METRICS (which groups of per-bucket
 * families), BUCKETS_TOP_N (the largest N buckets itemised, the rest summed as `_other`) and
 * MAX_SERIES (a ceiling on the series written). Cluster-wide families are never affected.
 */

import type { BudgetOutcome } from '../collectors/budget-families.js'
import {
  type UsageCollectorFamilies,
  usageCollectorFamilies,
  writeBucketSeries,
  writeBucketUsage,
} from '../collectors/usage-series.js'
import type { BucketGroup } from '../config/bucket-groups.js'
import { eachInSlices } from '../event-loop-slices.js'
import type { Families, HistogramName, LabelsOf, SettableName } from '../metrics/families.js'
import type { HistogramSnapshot, MetricSink } from '../metrics/metric-set.js'
import { FigureSums, sumFigures } from '../record/usage-sums.js'
import { type BucketRecord, byName } from '../snapshot/snapshot.js'
import { figuresOf, measuredBytes } from '../snapshot/stored-records.js'
import type { BucketUsage } from '../sources/types.js'

/** The `bucket` label of the row that sums the buckets BUCKETS_TOP_N does not itemise. */
export const OTHER_BUCKET = '_other'

export interface SeriesBudget {
  /** BUCKET_METRICS: the per-bucket groups written; undefined for every group. */
  readonly groups?: readonly BucketGroup[]
  /** BUCKETS_TOP_N; 0 for every bucket. */
  readonly topN: number
  /** MAX_SERIES; 0 for no ceiling. */
  readonly maxSeries: number
}

export const NO_BUDGET: SeriesBudget = { topN: 0, maxSeries: 0 }

/** The buckets BUCKETS_TOP_N did not itemise, as one row of summed figures. */
interface OtherBuckets {
  readonly kind: 'other'
  /** How many buckets (measured or not) the row stands for. */
  readonly buckets: number
  readonly usage: BucketUsage
}

export type PlannedBucket = BucketRecord | OtherBuckets

/**
 * The rows to write, in writing order. With no budget, the snapshot's records as they are (by
 * name). With BUCKETS_TOP_N or MAX_SERIES, by bytes, largest first (ties by name; never-measured
 * buckets last): the ceiling keeps the largest. BUCKETS_TOP_N keeps N and sums the rest into one
 * `_other` row, written last. A bucket literally named `_other` (an fs folder can be) is always
 * summed into that row, never itemised, so the label stays one row.
 */
export async function planBuckets(
  records: readonly BucketRecord[],
  budget: SeriesBudget,
): Promise<readonly PlannedBucket[]> {
  if (budget.topN === 0 && budget.maxSeries === 0) return records
  const ranked = [...records].sort(
    (a, b) => (measuredBytes(b) ?? -1) - (measuredBytes(a) ?? -1) || byName(a, b),
  )
  if (budget.topN === 0) return ranked
  const itemised: PlannedBucket[] = []
  const rest: BucketRecord[] = []
  for (const record of ranked) {
    if (itemised.length < budget.topN && record.name !== OTHER_BUCKET) itemised.push(record)
    else rest.push(record)
  }
  // In slices: at 100,000 buckets the sum is hundreds of ms (more for records still stored).
  const sums = new FigureSums()
  await eachInSlices(rest, (record) => {
    const usage = figuresOf(record)
    if (usage) sums.add(usage)
  })
  if (sums.count > 0) itemised.push({ kind: 'other', buckets: rest.length, usage: sums.figures() })
  return itemised
}

/**
 * The `_other` row's figures: the additive figures of `usages` summed (ADDITIVE_FIGURES, the one
 * list the merge of a bucket's parts uses too); the others (NOT_ADDITIVE_FIGURES: the largest object, times,
 * the quota, prefixes, info) have no meaning for a sum of buckets and are left out.
 */
export function sumUsage(usages: readonly BucketUsage[]): BucketUsage {
  return sumFigures(usages)
}

type Sink = MetricSink<UsageCollectorFamilies>

/** A sink that passes on only the families of the enabled groups, and counts the series it passed. */
export class SeriesCounter<F extends Families> implements MetricSink<F> {
  series = 0
  readonly #families: F
  readonly #target: MetricSink<F> | undefined
  readonly #groups: ReadonlySet<string> | undefined

  /** `target` undefined: count only. `groups` undefined: every group. */
  constructor(families: F, target: MetricSink<F> | undefined, groups: readonly string[] | undefined) {
    this.#families = families
    this.#target = target
    this.#groups = groups ? new Set(groups) : undefined
  }

  set<K extends SettableName<F>>(name: K, labels: LabelsOf<F, K>, value: number): void {
    if (!this.#enabled(name)) return
    this.series++
    this.#target?.set(name, labels, value)
  }

  histogram<K extends HistogramName<F>>(name: K, labels: LabelsOf<F, K>, histogram: HistogramSnapshot): void {
    if (!this.#enabled(name)) return
    // One series per bound, +Inf, _sum and _count.
    this.series += histogram.upperBounds.length + 3
    this.#target?.histogram(name, labels, histogram)
  }

  #enabled(name: string): boolean {
    const group = this.#families[name]?.bucketGroup
    return group === undefined || this.#groups === undefined || this.#groups.has(group)
  }
}

/** Writes one planned row: a bucket's series, or the `_other` row's (no scan health but unreadable entries). */
function writePlanned(out: Sink, row: PlannedBucket): void {
  if (!('kind' in row)) {
    writeBucketSeries(out, row)
    return
  }
  writeBucketUsage(out, OTHER_BUCKET, row.usage)
  if (row.usage.unreadableEntries !== undefined) {
    out.set('bucket_scan_unreadable_entries', { bucket: OTHER_BUCKET }, row.usage.unreadableEntries)
  }
}

/**
 * Writes planned rows under the budget: only the enabled groups, and under MAX_SERIES whole rows
 * until the next would pass the ceiling; from there on every row is left out (and counted).
 * `startSeries`: series already written (the cluster totals). Shared across batches (the worker).
 */
export class BudgetedWriter {
  readonly #out: SeriesCounter<UsageCollectorFamilies>
  readonly #count: SeriesCounter<UsageCollectorFamilies>
  readonly #budget: SeriesBudget
  #series: number
  #droppedSeries = 0
  #droppedBuckets = 0

  constructor(out: Sink, budget: SeriesBudget, startSeries: number) {
    this.#out = new SeriesCounter(usageCollectorFamilies, out, budget.groups)
    this.#count = new SeriesCounter(usageCollectorFamilies, undefined, budget.groups)
    this.#budget = budget
    this.#series = startSeries
  }

  write(row: PlannedBucket): void {
    if (this.#budget.maxSeries > 0) {
      this.#count.series = 0
      writePlanned(this.#count, row)
      const needed = this.#count.series
      if (this.#droppedBuckets > 0 || this.#series + needed > this.#budget.maxSeries) {
        this.#droppedSeries += needed
        this.#droppedBuckets += 'kind' in row ? row.buckets : 1
        return
      }
    }
    this.#out.series = 0
    writePlanned(this.#out, row)
    this.#series += this.#out.series
  }

  outcome(): BudgetOutcome {
    return { series: this.#series, droppedSeries: this.#droppedSeries, droppedBuckets: this.#droppedBuckets }
  }
}
