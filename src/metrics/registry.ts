import type { CollectorRunner } from '../collectors/runner.js'
import { VERSION } from '../version.js'
import type { ExpositionFamily } from './exposition.js'
import type { ExpositionBlock } from './exposition-block.js'
import { MetricSet } from './metric-set.js'
import type { RuntimeMetrics } from './runtime-metrics.js'

/** What one scrape serves: families rendered for it, and blocks rendered before it. */
export interface ScrapeContent {
  /** The exporter's own families (collectors plus build info) and the runtime families. */
  readonly families: readonly ExpositionFamily[]
  /** Families rendered ahead (a snapshot's usage families), served after `families`. */
  readonly blocks: readonly ExpositionBlock[]
}

/**
 * Everything one scrape serves: the exporter's own families (collectors plus build info, all from
 * the catalogue), the runtime families, and the blocks collectors attached.
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

  async collect(budgetMs: number): Promise<ScrapeContent> {
    const [collected, runtimeFamilies] = await Promise.all([
      this.#runner.run(budgetMs),
      this.#runtime.families(),
    ])
    const own = new MetricSet()
    own.set('exporterBuildInfo', { version: VERSION, node_version: process.version }, 1)
    own.absorb(collected)
    return { families: [...own.toExposition(this.#namespace), ...runtimeFamilies], blocks: own.blocks }
  }
}
