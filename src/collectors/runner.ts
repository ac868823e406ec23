import type { Logger } from 'pino'
import { MetricSet } from '../metrics/metric-set.js'
import type { Collector } from './types.js'

/** How a collector fared in its last scrape, for the landing page. */
export interface CollectorOutcome {
  readonly name: string
  readonly state: 'ok' | 'failing' | 'not run yet'
  readonly error?: string
  /** When its last scrape finished, ms since the epoch. */
  readonly lastRunAtMs?: number
}

export class CollectorTimeoutError extends Error {
  constructor(budgetMs: number) {
    super(`did not finish within the scrape budget of ${budgetMs} ms`)
    this.name = 'CollectorTimeoutError'
  }
}

/**
 * Runs every collector concurrently for one scrape, each isolated as node_exporter does: a
 * collector that throws or outlives the budget contributes nothing but
 * `scrape_collector_success{collector} 0`, and never fails the scrape. Failures are logged when
 * a collector's state changes (ok -> failing, or a different error), not on every scrape.
 */
export class CollectorRunner {
  readonly #collectors: readonly Collector[]
  readonly #logger: Logger
  readonly #lastError = new Map<string, string | undefined>()
  readonly #lastRunAtMs = new Map<string, number>()

  constructor(collectors: readonly Collector[], logger: Logger) {
    this.#collectors = collectors
    this.#logger = logger
  }

  get names(): string[] {
    return this.#collectors.map((collector) => collector.name)
  }

  outcomes(): CollectorOutcome[] {
    return this.#collectors.map(({ name }) => {
      const lastRunAtMs = this.#lastRunAtMs.get(name)
      if (lastRunAtMs === undefined) return { name, state: 'not run yet' }
      const error = this.#lastError.get(name)
      return error === undefined
        ? { name, state: 'ok', lastRunAtMs }
        : { name, state: 'failing', error, lastRunAtMs }
    })
  }

  async run(budgetMs: number): Promise<MetricSet> {
    const result = new MetricSet()
    const outcomes = await Promise.all(this.#collectors.map((collector) => this.#runOne(collector, budgetMs)))
    for (const { collector, out, error, seconds } of outcomes) {
      if (!error) result.absorb(out)
      result.set('scrapeCollectorSuccess', { collector: collector.name }, error ? 0 : 1)
      result.set('scrapeCollectorDurationSeconds', { collector: collector.name }, seconds)
      this.#report(collector.name, error)
    }
    return result
  }

  async #runOne(collector: Collector, budgetMs: number) {
    const out = new MetricSet()
    const controller = new AbortController()
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new CollectorTimeoutError(budgetMs)
        controller.abort(error)
        reject(error)
      }, budgetMs)
    })
    let error: Error | undefined
    try {
      // A never-settling collect() loses this race; its late writes go to a set nobody reads.
      await Promise.race([Promise.resolve().then(() => collector.collect(out, controller.signal)), deadline])
    } catch (caught) {
      error = caught instanceof Error ? caught : new Error(String(caught))
    } finally {
      clearTimeout(timer)
    }
    return { collector, out, error, seconds: (performance.now() - started) / 1000 }
  }

  #report(name: string, error: Error | undefined): void {
    this.#lastRunAtMs.set(name, Date.now())
    const message = error?.message
    const previous = this.#lastError.get(name)
    this.#lastError.set(name, message)
    if (message === previous) return
    if (message) this.#logger.warn({ collector: name, err: error }, 'collector failed')
    else if (previous !== undefined) this.#logger.info({ collector: name }, 'collector recovered')
  }
}
