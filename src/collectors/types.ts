import type { MetricSet } from '../metrics/metric-set.js'

/**
 * One source of metrics, run on every scrape. It writes what it currently knows into `out` and
 * should return quickly: expensive work belongs in a background scanner whose snapshot the
 * collector only reads. `signal` aborts when the scrape's budget runs out.
 */
export interface Collector {
  /** snake_case id, the `collector` label of the scrape_collector_* families. */
  readonly name: string
  collect(out: MetricSet, signal: AbortSignal): Promise<void> | void
}
