import type { CollectorRunner } from '../collectors/runner.js'
import { VERSION } from '../version.js'
import type { ExpositionFamily } from './exposition.js'
import { MetricSet } from './metric-set.js'
import type { RuntimeMetrics } from './runtime-metrics.js'

/**
 * Everything one scrape serves, in order: the exporter's own families (collectors plus build
 * info, all from the catalogue) and the runtime families.
 */
export class ExporterRegistry {
  readonly #namespace: string
  readonly #runner: CollectorRunner
  readonly #runtime: RuntimeMetrics

  constructor(options: { namespace: string; runner: CollectorRunner; runtime: RuntimeMetrics }) {
    this.#namespace = options.namespace
    this.#runner = options.runner
    this.#runtime = options.runtime
  }

  async collect(budgetMs: number): Promise<ExpositionFamily[]> {
    const [collected, runtimeFamilies] = await Promise.all([
      this.#runner.run(budgetMs),
      this.#runtime.families(),
    ])
    const own = new MetricSet()
    own.set('exporterBuildInfo', { version: VERSION, node_version: process.version }, 1)
    own.absorb(collected)
    return [...own.toExposition(this.#namespace), ...runtimeFamilies]
  }
}
