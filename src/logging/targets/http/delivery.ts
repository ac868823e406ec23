import type { Level } from 'pino'
import { withoutCredentials } from '../../../config/url-credentials.js'
import { VERSION } from '../../../version.js'
import type { BackoffPolicy, DeliveryStats, LogTarget, TargetReporter } from '../types.js'
import { backoffDelayMs, DEFAULT_BACKOFF } from './backoff.js'
import { BatchPoster, type PostOutcome } from './batch-poster.js'
import { EntryQueue } from './entry-queue.js'

export interface HttpTargetOptions {
  readonly endpoint: string
  readonly authToken: string
  readonly level: Level
  readonly batchSize: number
  readonly flushIntervalMs: number
  readonly queueSize: number
  readonly timeoutMs: number
  /** Where the target reports its own state changes (offline, back, rejected, dropping). */
  readonly report: TargetReporter
  readonly backoff?: BackoffPolicy
  /** Jitter source; injectable so a test can pin the delays. */
  readonly random?: () => number
}

export type HttpTarget = LogTarget & Required<Pick<LogTarget, 'close' | 'stats'>>

/**
 * The HTTP target: pino writes each entry (one JSON line) into a bounded queue, synchronously and
 * in O(1), and a single background loop POSTs the queue in NDJSON batches. Nothing on the logging
 * path waits for the network, so a slow or dead receiver costs memory up to the queue bound and
 * never a blocked event loop or scrape.
 */
export function createHttpTarget(options: HttpTargetOptions): HttpTarget {
  const delivery = new HttpDelivery(options)
  return {
    name: 'http',
    level: options.level,
    stream: { write: (line: string) => delivery.enqueue(line) },
    close: (withinMs) => delivery.close(withinMs),
    stats: () => delivery.stats(),
  }
}

class HttpDelivery {
  readonly #options: HttpTargetOptions
  readonly #queue: EntryQueue<string>
  readonly #poster: BatchPoster
  readonly #backoff: BackoffPolicy
  /** Aborted at the shutdown deadline: cuts the request in flight and any backoff wait. */
  readonly #deadline = new AbortController()
  readonly #endpointShown: string

  #sent = 0
  #failed = 0
  #dropped = 0
  #online = true
  /** Entries of the batch being POSTed; they count against the queue bound. */
  #inFlight = 0
  /** Queued entries whose flush interval has passed: sent even if they do not fill a batch. */
  #due = 0
  #failures = 0
  /** The current problem (`HTTP 503`, `ECONNREFUSED`...), so each change is reported once. */
  #problem: string | undefined
  #droppedAtProblem = 0
  #dropReported = false

  #flushTimer: NodeJS.Timeout | undefined
  #pumpScheduled = false
  #pumpRun: Promise<void> | undefined
  #wake: (() => void) | undefined
  #closing = false
  #closed = false
  #closeRun: Promise<void> | undefined

  constructor(options: HttpTargetOptions) {
    this.#options = options
    this.#queue = new EntryQueue(options.queueSize)
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF
    this.#endpointShown = withoutCredentials(options.endpoint)
    this.#poster = new BatchPoster({
      endpoint: options.endpoint,
      authToken: options.authToken,
      timeoutMs: options.timeoutMs,
      userAgent: `objstore-exporter/${VERSION}`,
    })
  }

  /** Called by pino for every entry at or above the target's level. O(1), no I/O. */
  enqueue(line: string): void {
    if (this.#closed) {
      this.#dropped++
      return
    }
    const dropped = this.#queue.pushDroppingOldest(line, this.#inFlight)
    if (dropped > 0) this.#noteDropped(dropped)
    // The timer starts with the first entry of a window, so no entry waits longer than the interval.
    if (!this.#flushTimer && !this.#closing) {
      this.#flushTimer = setTimeout(() => this.#intervalPassed(), this.#options.flushIntervalMs)
      this.#flushTimer.unref()
    }
    if (this.#queue.size >= this.#options.batchSize) this.#schedulePump()
  }

  stats(): DeliveryStats {
    return {
      sent: this.#sent,
      failed: this.#failed,
      dropped: this.#dropped,
      queued: this.#queue.size + this.#inFlight,
      online: this.#online,
    }
  }

  close(withinMs: number): Promise<void> {
    this.#closeRun ??= this.#close(withinMs)
    return this.#closeRun
  }

  async #close(withinMs: number): Promise<void> {
    this.#closing = true
    clearTimeout(this.#flushTimer)
    this.#flushTimer = undefined
    const deadline = setTimeout(() => this.#deadline.abort(), withinMs)
    deadline.unref()
    // A backoff wait would outlast the deadline: try again now.
    this.#wake?.()
    while (this.#queue.size > 0 && !this.#deadline.signal.aborted) await this.#runPump()
    if (this.#pumpRun) await this.#pumpRun
    clearTimeout(deadline)
    this.#closed = true
    const left = this.#queue.clear()
    this.#dropped += left
    await this.#poster.close(this.#deadline.signal.aborted)
    if (left > 0) {
      this.#options.report.warn(
        { endpoint: this.#endpointShown, entries: left, withinMs },
        'log entries left undelivered at shutdown',
      )
    }
  }

  #intervalPassed(): void {
    this.#flushTimer = undefined
    this.#due = this.#queue.size
    this.#schedulePump()
  }

  /** Starts the loop on the next turn, so a burst of synchronous log calls fills batches first. */
  #schedulePump(): void {
    if (this.#pumpRun || this.#pumpScheduled) return
    this.#pumpScheduled = true
    setImmediate(() => {
      this.#pumpScheduled = false
      void this.#runPump()
    })
  }

  #runPump(): Promise<void> {
    this.#pumpRun ??= this.#pump().finally(() => {
      this.#pumpRun = undefined
    })
    return this.#pumpRun
  }

  /** Sends batches while some are due; one request at a time, so entries arrive in order. */
  async #pump(): Promise<void> {
    const { batchSize } = this.#options
    while (this.#queue.size > 0 && !this.#deadline.signal.aborted) {
      const due = this.#closing || this.#due > 0 || this.#queue.size >= batchSize
      if (!due) break
      const batch = this.#queue.takeFront(batchSize)
      this.#due = Math.max(0, this.#due - batch.length)
      this.#inFlight = batch.length
      const outcome = await this.#poster.post(batch.join(''), this.#deadline.signal)
      this.#inFlight = 0
      if (outcome.kind === 'delivered') {
        this.#sent += batch.length
        this.#failures = 0
        this.#recovered()
      } else if (outcome.kind === 'rejected') {
        this.#failed += batch.length
        this.#failures = 0
        this.#trouble(outcome, batch.length)
      } else {
        // Back in front, in order; entries dropped meanwhile made room for exactly this batch.
        this.#queue.restoreFront(batch)
        this.#due += batch.length
        this.#failures++
        this.#trouble(outcome, batch.length)
        await this.#sleep(this.#retryDelay(outcome))
      }
    }
    if (this.#queue.size === 0) {
      clearTimeout(this.#flushTimer)
      this.#flushTimer = undefined
      this.#due = 0
      this.#dropReported = false
    }
  }

  #retryDelay(outcome: Extract<PostOutcome, { kind: 'retry' }>): number {
    const delay = backoffDelayMs(this.#failures, this.#backoff, this.#options.random)
    const asked = outcome.retryAfterMs ?? 0
    return Math.min(this.#backoff.maxMs, Math.max(delay, asked))
  }

  /** Waits `ms`, or less when closing starts or the shutdown deadline passes. */
  #sleep(ms: number): Promise<void> {
    if (this.#deadline.signal.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#deadline.signal.removeEventListener('abort', done)
        this.#wake = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      timer.unref()
      this.#deadline.signal.addEventListener('abort', done, { once: true })
      this.#wake = done
    })
  }

  #recovered(): void {
    this.#online = true
    if (this.#problem === undefined) return
    this.#options.report.info(
      {
        endpoint: this.#endpointShown,
        previousProblem: this.#problem,
        droppedMeanwhile: this.#dropped - this.#droppedAtProblem,
      },
      'log receiver accepting entries again',
    )
    this.#problem = undefined
  }

  #trouble(outcome: Exclude<PostOutcome, { kind: 'delivered' }>, entries: number): void {
    this.#online = false
    if (outcome.problem === this.#problem) return
    if (this.#problem === undefined) this.#droppedAtProblem = this.#dropped
    this.#problem = outcome.problem
    const details = { endpoint: this.#endpointShown, problem: outcome.problem, entries }
    if (outcome.kind === 'rejected') {
      this.#options.report.warn(details, 'log receiver rejected a batch; its entries are dropped')
    } else {
      this.#options.report.warn(details, 'log delivery failing; retrying with backoff')
    }
  }

  #noteDropped(count: number): void {
    this.#dropped += count
    if (this.#dropReported) return
    this.#dropReported = true
    // Reported on the next turn: this runs inside a pino write, which must not log re-entrantly.
    setImmediate(() =>
      this.#options.report.warn(
        { endpoint: this.#endpointShown, queueSize: this.#options.queueSize },
        'log queue full; dropping the oldest entries',
      ),
    )
  }
}
