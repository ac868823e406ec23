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
 * How long the runtime families, once rendered, are served again: scrapes within a second share
 * them. Reading them (prom-client's event-loop percentiles, /proc reads, heap spaces) cost more
 * than the rest of a small scrape together; the figures are at most this much older than the
 * scrape, which no Prometheus scrape interval can tell.
 */
export const RUNTIME_MAX_AGE_MS = 1000

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
  readonly #runtimeMaxAgeMs: number
  readonly #clock: () => number
  /** The runtime families rendered, shared by the scrapes of their second (and while rendering). */
  #runtimeRendered: { readonly atMs: number; readonly families: Promise<BlockFamily[]> } | undefined

  constructor(
    options: ExpositionNaming & {
      collection: ScrapeCollection
      runtime: ForeignFamilies
      /** How long rendered runtime families are served again; RUNTIME_MAX_AGE_MS unless set. */
      runtimeMaxAgeMs?: number
      /** Milliseconds, monotonic; injected only in tests. */
      clock?: () => number
    },
  ) {
    this.#naming = { namespace: options.namespace, constLabels: options.constLabels ?? {} }
    this.#collection = options.collection
    this.#runtime = options.runtime
    this.#runtimeMaxAgeMs = options.runtimeMaxAgeMs ?? RUNTIME_MAX_AGE_MS
    this.#clock = options.clock ?? (() => performance.now())
  }

  async collect(budgetMs: number): Promise<ScrapeContent> {
    const [collected, runtimeFamilies] = await Promise.all([
      this.#collection.run(budgetMs),
      this.#runtimeFamilies(),
    ])
    const own = renderScrape(collected, this.#naming)
    return { families: [...own.families, ...runtimeFamilies], blocks: own.blocks }
  }

  /** The runtime families rendered, read anew when the last reading is older than the max age. */
  #runtimeFamilies(): Promise<BlockFamily[]> {
    const now = this.#clock()
    const cached = this.#runtimeRendered
    if (cached && now - cached.atMs < this.#runtimeMaxAgeMs) return cached.families
    const families = this.#runtime.families().then((foreign) => {
      const writer = new ExpositionWriter<Families>(
        this.#naming,
        {},
        {
          firstChunkBytes: SCRAPE_FIRST_CHUNK_BYTES,
        },
      )
      for (const family of foreign) writer.writeFamily(family)
      return writer.families()
    })
    this.#runtimeRendered = { atMs: now, families }
    // A failed reading fails the scrapes sharing it, not the next ones.
    families.catch(() => {
      if (this.#runtimeRendered?.families === families) this.#runtimeRendered = undefined
    })
    return families
  }
}
