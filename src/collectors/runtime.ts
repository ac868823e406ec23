import client from 'prom-client'
import type { ExpositionFamily, ExpositionType } from '../metrics/exposition/format.js'

/**
 * Runtime families that prom-client's default metrics produce; declared here by prefix because
 * prom-client names them (process_*, nodejs_*). They are rendered from their own registry.
 */
export const RUNTIME_FAMILY_PREFIXES = ['process_', 'nodejs_'] as const

/**
 * prom-client's `nodejs_active_{handles,requests,resources}_total` are gauges with a counter's
 * suffix, which `promtool check metrics` rejects. The same numbers are in the labelled
 * `nodejs_active_{handles,requests,resources}` gauges (sum over `type`), so these are not served.
 */
const DROPPED_RUNTIME_FAMILIES: ReadonlySet<string> = new Set([
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
])

/**
 * The process and Node.js runtime families (process_*, nodejs_*) from prom-client's default
 * metrics, kept in a registry of their own (as node_exporter keeps process_* apart) and handed to
 * the one renderer as plain families.
 */
export class RuntimeMetrics {
  readonly #registry = new client.Registry()

  constructor() {
    client.collectDefaultMetrics({ register: this.#registry })
  }

  async families(): Promise<ExpositionFamily[]> {
    const metrics = await this.#registry.getMetricsAsJSON()
    const families: ExpositionFamily[] = []
    for (const metric of metrics) {
      if (DROPPED_RUNTIME_FAMILIES.has(metric.name) || metric.values.length === 0) continue
      families.push({
        name: metric.name,
        help: metric.help,
        type: String(metric.type) as ExpositionType,
        samples: metric.values.map((sample) => ({
          name: (sample as { metricName?: string }).metricName ?? metric.name,
          labels: Object.entries(sample.labels).map(([key, value]) => [key, String(value)] as const),
          // prom-client reports an undefined statistic (mean of no samples) as null.
          value: sample.value ?? Number.NaN,
        })),
      })
    }
    return families
  }

  close(): void {
    this.#registry.clear()
  }
}
