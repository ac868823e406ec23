import type { Families } from '../families.js'
import type { MetricSet } from '../metric-set.js'
import type { BlockFamily, ExpositionBlock } from './block.js'
import type { ExpositionFamily } from './format.js'
import { type ExpositionNaming, ExpositionWriter } from './writer.js'

/** What one scrape serves: families rendered for it, and blocks rendered before it. */
export interface ScrapeContent {
  /** The exporter's own families (collectors plus build info) and the runtime families, rendered. */
  readonly families: readonly BlockFamily[]
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

/** A scrape's own families are a few lines each: small first buffers. */
const SCRAPE_FIRST_CHUNK_BYTES = 256

/**
 * Renders one scrape's content with the one writer: the set's families named under `naming`
 * in declaration order, then `foreign` families as they are; the set's blocks come as rendered.
 */
export function renderScrape(
  set: MetricSet,
  naming: string | ExpositionNaming,
  foreign: readonly ExpositionFamily[] = [],
): ScrapeContent {
  const writer = new ExpositionWriter<Families>(naming, set.families, {
    firstChunkBytes: SCRAPE_FIRST_CHUNK_BYTES,
  })
  set.writeTo(writer)
  for (const family of foreign) writer.writeFamily(family)
  return { families: writer.families(), blocks: set.blocks }
}

/**
 * Assembles what one scrape serves: the collectors' families (build info included) named under
 * the namespace, with the constant labels, then the runtime families, and the blocks collectors attached. It sits after the
 * collectors in the flow and knows them only by these interfaces.
 */
export class ScrapeAssembler {
  readonly #naming: ExpositionNaming
  readonly #collection: ScrapeCollection
  readonly #runtime: ForeignFamilies

  constructor(options: ExpositionNaming & { collection: ScrapeCollection; runtime: ForeignFamilies }) {
    this.#naming = { namespace: options.namespace, constLabels: options.constLabels ?? {} }
    this.#collection = options.collection
    this.#runtime = options.runtime
  }

  async collect(budgetMs: number): Promise<ScrapeContent> {
    const [collected, runtimeFamilies] = await Promise.all([
      this.#collection.run(budgetMs),
      this.#runtime.families(),
    ])
    return renderScrape(collected, this.#naming, runtimeFamilies)
  }
}
