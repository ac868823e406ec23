import type { Logger } from 'pino'
import { type Families, unionOf } from '../metrics/families.js'
import { MetricSet } from '../metrics/metric-set.js'
import { inCatalogueOrder } from './catalogue.js'
import {
  exporterFamilies,
  writeBuildInfo,
  writeCollectorOutcome,
  writeWorkerThreads,
} from './exporter-families.js'
import type { Collector } from './types.js'

/** How a collector fared in its last scrape, for the landing page. */
export interface CollectorOutcome {
  readonly name: string
  readonly state: 'ok' | 'failing' | 'not run yet'
  readonly error?: string
  /** When its last scrape finished, ms since the epoch. */
  readonly lastRunAtMs?: number
}

class CollectorTimeoutError extends Error {
  constructor(budgetMs: number) {
    super(`did not finish within the scrape budget of ${budgetMs} ms`)
    this.name = 'CollectorTimeoutError'
  }
}

/** State-change lines one collector may log per window; further changes are counted instead. */
export const STATE_LINES_PER_WINDOW = 4
export const STATE_LINE_WINDOW_MS = 60_000

/** Where one collector's state-change lines stand in the current window. */
interface LineWindow {
  startedAtMs: number
  lines: number
  /** Changes not logged since the last line. */
  suppressed: number
  /** Announces the state at the window's end when changes were held back. */
  flush?: NodeJS.Timeout | undefined
}

/**
 * Runs every collector concurrently for one scrape, each isolated as node_exporter does: a
 * collector that throws or outlives the budget contributes nothing but
 * `scrape_collector_success{collector} 0`, and never fails the scrape. Failures are logged when
 * a collector's state changes (ok -> failing, or a different error), not on every scrape, and at
 * most STATE_LINES_PER_WINDOW times per collector per STATE_LINE_WINDOW_MS: a collector that
 * flaps (or a client that makes it flap) cannot flood the logs. Changes beyond that are counted
 * (`suppressedChanges` on the next line), and at the window's end the current state is logged with
 * that count, so the last line always tells the truth.
 *
 * Each collector writes into a set limited to the families it declares; the scrape's set is the
 * union of those and the exporter's own (build info, scrape_collector_*), in catalogue order. Two
 * collectors declaring one family are refused when the runner is made (DuplicateFamilyError).
 */
export class CollectorRunner {
  readonly #collectors: readonly Collector[]
  readonly #families: Families
  readonly #logger: Logger
  readonly #lastError = new Map<string, string | undefined>()
  readonly #lastRunAtMs = new Map<string, number>()
  readonly #lastFailure = new Map<string, Error>()
  readonly #lineWindows = new Map<string, LineWindow>()
  readonly #now: () => number

  /** `now` (ms) is for tests that step through windows. */
  constructor(collectors: readonly Collector[], logger: Logger, now: () => number = () => performance.now()) {
    this.#collectors = collectors
    this.#families = inCatalogueOrder(
      unionOf(
        [...collectors.map((collector) => collector.families), exporterFamilies],
        [...collectors.map((collector) => `collector ${collector.name}`), 'the runner'],
      ),
    )
    this.#logger = logger
    this.#now = now
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

  /** Every family a scrape may hold: the collectors' and the exporter's own, in exposition order. */
  get families(): Families {
    return this.#families
  }

  /** One scrape's samples: the build info, each collector's output and how each collector fared. */
  async run(budgetMs: number): Promise<MetricSet> {
    const result = new MetricSet(this.#families)
    const own = new MetricSet(exporterFamilies)
    writeBuildInfo(own)
    writeWorkerThreads(own)
    const outcomes = await Promise.all(this.#collectors.map((collector) => this.#runOne(collector, budgetMs)))
    for (const { collector, out, error, seconds } of outcomes) {
      if (!error) result.absorb(out)
      writeCollectorOutcome(own, collector.name, !error, seconds)
      this.#report(collector.name, error)
    }
    result.absorb(own)
    return result
  }

  async #runOne(collector: Collector, budgetMs: number) {
    const out = new MetricSet(collector.families)
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
    // Whole nanoseconds: a difference of two performance.now() readings carries binary noise.
    return { collector, out, error, seconds: Math.round((performance.now() - started) * 1e6) / 1e9 }
  }

  #report(name: string, error: Error | undefined): void {
    this.#lastRunAtMs.set(name, Date.now())
    const message = error?.message
    const previous = this.#lastError.get(name)
    this.#lastError.set(name, message)
    if (error) this.#lastFailure.set(name, error)
    if (message === previous) return
    const now = this.#now()
    let window = this.#lineWindows.get(name)
    if (!window) {
      window = { startedAtMs: now, lines: 0, suppressed: 0 }
      this.#lineWindows.set(name, window)
    }
    if (now - window.startedAtMs >= STATE_LINE_WINDOW_MS) {
      window.startedAtMs = now
      window.lines = 0
    }
    if (window.lines < STATE_LINES_PER_WINDOW) {
      this.#announce(name, window)
      return
    }
    window.suppressed++
    if (window.flush) return
    const flushed = window
    window.flush = setTimeout(
      () => {
        flushed.flush = undefined
        if (flushed.suppressed === 0) return
        flushed.startedAtMs = this.#now()
        flushed.lines = 0
        this.#announce(name, flushed)
      },
      STATE_LINE_WINDOW_MS - (now - window.startedAtMs),
    )
    // Only a log line waits on it: never keep the process up for that.
    window.flush.unref()
  }

  /** Logs the collector's current state, with the count of changes held back before it. */
  #announce(name: string, window: LineWindow): void {
    const message = this.#lastError.get(name)
    const suppressed = window.suppressed > 0 ? { suppressedChanges: window.suppressed } : {}
    window.lines++
    window.suppressed = 0
    if (message)
      this.#logger.warn(
        { collector: name, err: this.#lastFailure.get(name), ...suppressed },
        'collector failed',
      )
    else this.#logger.info({ collector: name, ...suppressed }, 'collector recovered')
  }
}
