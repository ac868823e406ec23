import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'

/**
 * What the series ceiling (`MAX_SERIES`) left out of the usage snapshot served. Written with the
 * snapshot's families, and only when a ceiling is set, so the default output is unchanged.
 */
export const budgetFamilies = describe('exporter', {
  exporter_series_limit: family(
    'gauge',
    [],
    'MAX_SERIES: the ceiling on the series of the usage snapshot (cluster totals and per-bucket series).',
  ),
  exporter_series_dropped: family(
    'gauge',
    [],
    'Series of the served usage snapshot left out because MAX_SERIES was reached (0: none).',
  ),
  exporter_buckets_dropped: family(
    'gauge',
    [],
    'Buckets of the served usage snapshot whose series were left out because MAX_SERIES was reached.',
  ),
  exporter_series_limit_hits_total: family(
    'counter',
    [],
    'Usage snapshots rendered since start whose series passed MAX_SERIES (some left out).',
  ),
})

/** How a rendering fared against the ceiling. */
export interface BudgetOutcome {
  /** Series written: cluster totals and per-bucket ones. */
  readonly series: number
  readonly droppedSeries: number
  readonly droppedBuckets: number
}

export function writeBudgetOutcome(
  out: MetricSink<typeof budgetFamilies>,
  maxSeries: number,
  outcome: BudgetOutcome,
  hits: number,
): void {
  out.set('exporter_series_limit', {}, maxSeries)
  out.set('exporter_series_dropped', {}, outcome.droppedSeries)
  out.set('exporter_buckets_dropped', {}, outcome.droppedBuckets)
  out.set('exporter_series_limit_hits_total', {}, hits)
}
