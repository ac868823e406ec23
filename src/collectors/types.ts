import type { Families } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'

/**
 * One source of metrics, run on every scrape (client_golang's Collector). `families` describes
 * every family it may emit (its Describe, kept next to the code that emits them); it writes what
 * it currently knows into `out`, a set that accepts only those families, and should return
 * quickly: expensive work belongs in a background scanner whose snapshot the collector only
 * reads. `signal` aborts when the scrape's budget runs out.
 */
export interface Collector<F extends Families = Families> {
  /** snake_case id, the `collector` label of the scrape_collector_* families. */
  readonly name: string
  readonly families: F
  collect(out: MetricSet<F>, signal: AbortSignal): Promise<void> | void
}
