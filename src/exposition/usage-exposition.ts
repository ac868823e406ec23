import type { Logger } from 'pino'
import type { BudgetOutcome } from '../collectors/budget-families.js'
import type { ServedBlock, UsageBlocks } from '../collectors/usage.js'
import type { Config } from '../config/load.js'
import type { ExpositionBlock } from '../metrics/exposition/block.js'
import type { ExpositionNaming } from '../metrics/exposition/writer.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import { NO_BUDGET, type SeriesBudget } from './usage-budget.js'
import { renderUsageBlock } from './usage-render.js'
import { RenderThread } from './usage-render-thread.js'

const noop = () => undefined

/** While MAX_SERIES keeps being passed, the warning is repeated at most this often. */
const LIMIT_LOG_INTERVAL_MS = 15 * 60_000

/** The budget the configuration asks for: BUCKET_METRICS's groups (checked at load), BUCKETS_TOP_N, MAX_SERIES. */
export function seriesBudgetOf(
  config: Pick<Config, 'BUCKET_GROUPS' | 'BUCKETS_TOP_N' | 'MAX_SERIES'>,
): SeriesBudget {
  return { groups: config.BUCKET_GROUPS, topN: config.BUCKETS_TOP_N, maxSeries: config.MAX_SERIES }
}

export interface UsageExpositionOptions {
  /** BUCKET_METRICS, BUCKETS_TOP_N, MAX_SERIES. */
  readonly budget?: SeriesBudget
  /** Where MAX_SERIES being passed is reported. */
  readonly logger?: Logger
  /** Injected by tests; Date.now otherwise. */
  readonly now?: () => number
}

/**
 * The usage families of the current snapshot, rendered once (both formats, and compressed) and
 * shared by every scrape of that snapshot. Snapshots are immutable and replaced whole, so the
 * snapshot's identity is the cache key: a new snapshot (a bucket added, one deleted, new figures)
 * is a new rendering, started when the scanner publishes it so the first scrape finds it ready
 * or nearly so.
 */
export class UsageExposition implements UsageBlocks {
  readonly #naming: string | ExpositionNaming
  readonly #controller = new AbortController()
  readonly #thread = new RenderThread()
  readonly #options: UsageExpositionOptions
  #current: { readonly snapshot: UsageSnapshot; readonly block: Promise<ExpositionBlock> } | undefined
  /** The newest snapshot whose rendering finished, with its block: served while a newer one renders. */
  #rendered: ServedBlock | undefined
  /** Renderings started so far; the order in which they may replace #rendered. */
  #started = 0
  #renderedOrder = 0
  /** Renderings that passed MAX_SERIES, and when that was last logged (undefined: not passing now). */
  #limitHits = 0
  #limitLoggedAtMs: number | undefined

  constructor(naming: string | ExpositionNaming, options: UsageExpositionOptions = {}) {
    this.#naming = naming
    this.#options = options
  }

  /** Starts rendering `snapshot` ahead of its first scrape (the scanner's onSnapshot hook). */
  prepare(snapshot: UsageSnapshot): void {
    // A failure is the scrape's to report, when it asks for the block.
    this.blockFor(snapshot).catch(() => undefined)
  }

  /**
   * The rendered families of `snapshot`. A rendering already started for an older snapshot runs to
   * its end for the scrapes waiting on it; it is dropped once they are served. The block it
   * replaces is retired once this one is ready: its text, if held, goes (metrics/exposition/block.ts).
   */
  blockFor(snapshot: UsageSnapshot): Promise<ExpositionBlock> {
    if (this.#current?.snapshot === snapshot) return this.#current.block
    const previous = this.#current?.block
    const block = renderUsageBlock(snapshot, this.#naming, {
      signal: this.#controller.signal,
      thread: this.#thread,
      budget: this.#options.budget ?? NO_BUDGET,
      onOutcome: (outcome) => this.#counted(outcome),
    })
    this.#current = { snapshot, block }
    const order = ++this.#started
    const retirePrevious = () => previous?.then((replaced) => replaced.retire(), noop)
    block.then((rendered) => {
      if (order > this.#renderedOrder) {
        this.#renderedOrder = order
        this.#rendered = { snapshot, block: rendered }
      }
      retirePrevious()
    }, retirePrevious)
    return block
  }

  /** Whether any snapshot's families were rendered: until then a scrape has no usage block to serve. */
  get hasRendered(): boolean {
    return this.#rendered !== undefined
  }

  /**
   * What a scrape serves for `snapshot`: its block, waited for up to `graceMs` when it is still
   * rendering and an earlier snapshot's block is ready, which is served then, whole, with that
   * snapshot. At 100,000 buckets a rendering takes some 10 s on a worker: scrapes meanwhile would
   * otherwise wait out their whole budget and go without the usage families after each scan
   * round. A rendering that failed fails the scrape's usage collector, as before.
   */
  async served(snapshot: UsageSnapshot, graceMs: number): Promise<ServedBlock> {
    const pending = this.blockFor(snapshot)
    const earlier = this.#rendered
    if (earlier === undefined || earlier.snapshot === snapshot) return { snapshot, block: await pending }
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), graceMs)
    })
    try {
      const block = await Promise.race([pending, grace])
      return block === undefined ? (this.#rendered ?? earlier) : { snapshot, block }
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Counts a rendering that passed MAX_SERIES and logs it: once when the ceiling is first passed,
   * again at most every LIMIT_LOG_INTERVAL_MS while it keeps being passed, once when it no longer is.
   */
  #counted(outcome: BudgetOutcome): number {
    const { logger, budget } = this.#options
    const now = (this.#options.now ?? Date.now)()
    if (outcome.droppedSeries === 0) {
      if (this.#limitLoggedAtMs !== undefined)
        logger?.info({ series: outcome.series }, 'series under MAX_SERIES again')
      this.#limitLoggedAtMs = undefined
      return this.#limitHits
    }
    this.#limitHits++
    if (this.#limitLoggedAtMs === undefined || now - this.#limitLoggedAtMs >= LIMIT_LOG_INTERVAL_MS) {
      this.#limitLoggedAtMs = now
      logger?.warn(
        {
          maxSeries: budget?.maxSeries,
          series: outcome.series,
          droppedSeries: outcome.droppedSeries,
          droppedBuckets: outcome.droppedBuckets,
        },
        'MAX_SERIES reached: the smallest buckets are left out of the scrape',
      )
    }
    return this.#limitHits
  }

  /** Stops any rendering or compression in progress; resolves once the render thread has ended. */
  async close(): Promise<void> {
    this.#controller.abort(new Error('exporter closing'))
    this.#current?.block.then((block) => block.retire(), noop)
    this.#current = undefined
    this.#rendered = undefined
    await this.#thread.close()
  }
}
