import type { MetricSet } from '../metric-set.js'
import type { ExpositionBlock } from './block.js'
import type { ExpositionFamily } from './format.js'

/** What one scrape serves: families rendered for it, and blocks rendered before it. */
export interface ScrapeContent {
  /** The exporter's own families (collectors plus build info) and the runtime families. */
  readonly families: readonly ExpositionFamily[]
  /** Families rendered ahead (a snapshot's usage families), served after `families`. */
  readonly blocks: readonly ExpositionBlock[]
}

/** Runs the collectors for one scrape (the CollectorRunner in production). */
export interface ScrapeCollection {
  run(budgetMs: number): Promise<MetricSet>
}

/** Families kept outside the collectors' declarations (prom-client's runtime families). */
export interface ForeignFamilies {
  families(): Promise<ExpositionFamily[]>
}

/**
 * Assembles what one scrape serves: the collectors' families (build info included) named under
 * the namespace, then the runtime families, and the blocks collectors attached. It sits after the
 * collectors in the flow and knows them only by these interfaces.
 */
export class ScrapeAssembler {
  readonly #namespace: string
  readonly #collection: ScrapeCollection
  readonly #runtime: ForeignFamilies

  constructor(options: { namespace: string; collection: ScrapeCollection; runtime: ForeignFamilies }) {
    this.#namespace = options.namespace
    this.#collection = options.collection
    this.#runtime = options.runtime
  }

  async collect(budgetMs: number): Promise<ScrapeContent> {
    const [collected, runtimeFamilies] = await Promise.all([
      this.#collection.run(budgetMs),
      this.#runtime.families(),
    ])
    return {
      families: [...collected.toExposition(this.#namespace), ...runtimeFamilies],
      blocks: collected.blocks,
    }
  }
}
