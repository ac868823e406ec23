// long: scheduling, publishing and one scan round in one class; to be split in two (issue 12)
import { setMaxListeners } from 'node:events'
import type { Logger } from 'pino'
import type { BucketFilter } from './bucket-filter.js'
import { linkedAbort } from './linked-abort.js'
import { type BucketRecord, deepFreeze, freezeSnapshot, type UsageSnapshot } from './snapshot.js'
import type { BucketUsage, ScanRound, UsageSource } from './sources/types.js'
import { SourceError } from './sources/types.js'
import { loadState, type RefusedRecord, removeStaleTemporaries, saveState } from './state-file.js'

export interface UsageScannerOptions {
  readonly source: UsageSource
  /** BUCKETS_INCLUDE / BUCKETS_EXCLUDE / SHARD. */
  readonly filter: BucketFilter
  /** BUCKETS: measure these instead of listing. */
  readonly fixedBuckets?: readonly string[]
  readonly intervalMs: number
  readonly concurrency: number
  /** Upper bound for one bucket (SCAN_TIMEOUT_SECONDS). */
  readonly timeoutMs: number
  /** STATE_FILE; undefined for none. */
  readonly stateFile?: string
  readonly logger: Logger
}

/** The pause between scans varies by this share either way, so replicas do not scan in step. */
const JITTER = 0.1

type Outcome =
  | {
      readonly ok: true
      readonly usage: BucketUsage
      readonly seconds: number
      readonly finishedAtMs: number
    }
  | { readonly ok: false; readonly error: SourceError; readonly seconds: number }

/**
 * Measures bucket usage in the background and publishes the result as an immutable snapshot.
 * One scan at a time; the next starts SCAN_INTERVAL_SECONDS (with jitter) after the previous one
 * ended. Within a scan, SCAN_CONCURRENCY buckets are measured at once, each within
 * SCAN_TIMEOUT_SECONDS. A bucket that fails keeps its last good figures, flagged by its success
 * and timestamp; failures are logged when they change, not on every scan.
 */
export class UsageScanner {
  readonly #options: UsageScannerOptions
  readonly #logger: Logger
  readonly #controller = new AbortController()
  readonly #listeners = new Set<(snapshot: UsageSnapshot) => void>()
  /** Last failure reported per bucket, so a failure is logged once until it changes. */
  readonly #bucketFailures = new Map<string, string>()
  #snapshot: UsageSnapshot | undefined
  #running: Promise<UsageSnapshot> | undefined
  #timer: NodeJS.Timeout | undefined
  #sourceFailure: string | undefined
  #stateFailure: string | undefined
  /** The records last refused, so the same refusal is not logged after every scan. */
  #lastRefused = '[]'
  #closed = false

  constructor(options: UsageScannerOptions) {
    this.#options = options
    this.#logger = options.logger
    // Every bucket measured at once listens to the scanner's signal.
    setMaxListeners(0, this.#controller.signal)
  }

  /** The last completed snapshot (scanned or loaded); undefined until there is one. */
  get snapshot(): UsageSnapshot | undefined {
    return this.#snapshot
  }

  /** The current snapshot, or the first one published (rejects if the scanner closes first). */
  firstSnapshot(): Promise<UsageSnapshot> {
    if (this.#snapshot) return Promise.resolve(this.#snapshot)
    if (this.#closed) return Promise.reject(new Error('usage scanner closed'))
    return new Promise((resolve, reject) => {
      const onClose = () => reject(this.#controller.signal.reason)
      this.#controller.signal.addEventListener('abort', onClose, { once: true })
      const unsubscribe = this.onSnapshot((snapshot) => {
        unsubscribe()
        this.#controller.signal.removeEventListener('abort', onClose)
        resolve(snapshot)
      })
    })
  }

  /** Calls `listener` with each snapshot published from now on; returns the unsubscribe function. */
  onSnapshot(listener: (snapshot: UsageSnapshot) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Loads the state file (if any) and schedules the first scan: at once, or when the loaded
   * snapshot falls due, so a restart neither waits for figures nor rescans a fresh store.
   */
  async start(): Promise<void> {
    let firstDelayMs = 0
    const loaded = await this.#loadState()
    if (loaded) {
      this.#publish(loaded)
      firstDelayMs = Math.min(
        this.#options.intervalMs,
        Math.max(0, loaded.completedAtMs + this.#options.intervalMs - Date.now()),
      )
    }
    this.#schedule(firstDelayMs)
  }

  /** Runs a scan now, or joins the one running; resolves with the snapshot it publishes. */
  scanNow(): Promise<UsageSnapshot> {
    if (this.#closed) return Promise.reject(new Error('usage scanner closed'))
    if (this.#running) return this.#running
    clearTimeout(this.#timer)
    const running = this.#scan().finally(() => {
      this.#running = undefined
      if (!this.#closed) this.#schedule(this.#jittered(this.#options.intervalMs))
    })
    this.#running = running
    return running
  }

  /** Stops the schedule, aborts a running scan and waits for it to unwind. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#timer)
    this.#controller.abort(new Error('usage scanner closed'))
    await this.#running?.catch(() => undefined)
    await this.#options.source.close()
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      // Failures of the source are in the snapshot; a scan rejects when the scanner closes, or on
      // a bug, which must not pass silently (the next scan is scheduled either way).
      this.scanNow().catch((error: unknown) => {
        if (!this.#closed) this.#logger.error({ err: error }, 'usage scan ended unexpectedly')
      })
    }, delayMs)
    this.#timer.unref()
  }

  #jittered(ms: number): number {
    return ms * (1 - JITTER + 2 * JITTER * Math.random())
  }

  async #scan(): Promise<UsageSnapshot> {
    const { source, filter, fixedBuckets, concurrency } = this.#options
    const signal = this.#controller.signal
    const previous = new Map((this.#snapshot?.buckets ?? []).map((record) => [record.name, record]))
    let round: ScanRound
    try {
      // Bounded like a bucket: an endpoint that accepts and never answers must not hold the scan
      // (and every later one) for as long as the HTTP client's own timeouts and retries allow.
      round = await this.#bounded(signal, 'buckets not listed', (bounded) =>
        source.beginScan({ signal: bounded, ...(fixedBuckets ? { fixedBuckets } : {}) }),
      )
    } catch (error) {
      if (signal.aborted) throw signal.reason
      this.#reportSource(asSourceError(error).message)
      // Nothing was measured: every known bucket keeps its figures (and its last duration) and is
      // flagged as failed.
      const buckets = [...previous.values()].filter((record) => filter(record.name))
      return this.#finish(
        false,
        buckets.map((record) => ({ ...record, scanSuccess: false })),
      )
    }
    let records: BucketRecord[]
    let outcomes: Outcome[]
    try {
      const names = [...new Set(round.buckets)].filter(filter).sort()
      outcomes = await mapConcurrent(names, concurrency, (name) => this.#measure(round, name, signal))
      if (signal.aborted) throw signal.reason
      records = []
      names.forEach((name, index) => {
        const record = this.#record(name, outcomes[index] as Outcome, previous.get(name))
        if (record) records.push(record)
      })
    } finally {
      await round.close?.()
    }
    const present = new Set(records.map((record) => record.name))
    for (const name of this.#bucketFailures.keys()) if (!present.has(name)) this.#bucketFailures.delete(name)
    // Up when it answered: nothing to measure, or at least one bucket measured.
    const failure = outcomes.find((outcome) => !outcome.ok)
    const sourceUp = outcomes.length === 0 || outcomes.some((outcome) => outcome.ok)
    this.#reportSource(
      sourceUp
        ? undefined
        : `no bucket could be measured: ${failure?.ok === false ? failure.error.message : ''}`,
    )
    return this.#finish(sourceUp, records)
  }

  async #measure(round: ScanRound, bucket: string, scanSignal: AbortSignal): Promise<Outcome> {
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    try {
      // Frozen now, bucket by bucket, so publishing the snapshot has little left to freeze.
      const usage = deepFreeze(
        await this.#bounded(scanSignal, 'not measured', (signal) => round.measure(bucket, signal)),
      )
      return { ok: true, usage, seconds: seconds(), finishedAtMs: Date.now() }
    } catch (error) {
      return { ok: false, error: asSourceError(error), seconds: seconds() }
    }
  }

  /**
   * Runs `work` within SCAN_TIMEOUT_SECONDS: its signal aborts when the scan does or the time is
   * up, and the result is given up at that moment even if `work` ignores the signal.
   */
  async #bounded<T>(
    scanSignal: AbortSignal,
    what: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const abort = linkedAbort(scanSignal)
    const timer = setTimeout(() => {
      const limit = this.#options.timeoutMs / 1000
      abort.controller.abort(new SourceError(`${what} within SCAN_TIMEOUT_SECONDS (${limit} s)`, 'failed'))
    }, this.#options.timeoutMs)
    timer.unref()
    const { signal } = abort
    try {
      return await untilAborted(work(signal), signal)
    } finally {
      clearTimeout(timer)
      abort.dispose()
    }
  }

  /** The bucket's record after this scan; undefined when it turned out to be gone. */
  #record(name: string, outcome: Outcome, previous: BucketRecord | undefined): BucketRecord | undefined {
    if (outcome.ok) {
      if (this.#bucketFailures.delete(name)) this.#logger.info({ bucket: name }, 'bucket scan recovered')
      return {
        name,
        usage: outcome.usage,
        scanSuccess: true,
        scanDurationSeconds: outcome.seconds,
        lastSuccessSeconds: outcome.finishedAtMs / 1000,
      }
    }
    const { error } = outcome
    // Listed a moment ago and missing now: deleted during the scan. A fixed BUCKETS entry that is
    // missing stays, flagged, since the operator asked for it by name.
    if (error.kind === 'missing' && !this.#options.fixedBuckets) {
      this.#bucketFailures.delete(name)
      return undefined
    }
    if (this.#bucketFailures.get(name) !== error.message) {
      this.#bucketFailures.set(name, error.message)
      this.#logger.warn({ bucket: name, kind: error.kind, error: error.message }, 'bucket scan failed')
    }
    return {
      name,
      ...(previous?.usage ? { usage: previous.usage } : {}),
      scanSuccess: false,
      scanDurationSeconds: outcome.seconds,
      ...(previous?.lastSuccessSeconds !== undefined
        ? { lastSuccessSeconds: previous.lastSuccessSeconds }
        : {}),
    }
  }

  async #finish(sourceUp: boolean, buckets: BucketRecord[]): Promise<UsageSnapshot> {
    const { source } = this.#options
    const snapshot = freezeSnapshot({
      sourceName: source.name,
      sourceId: source.id,
      sourceUp,
      completedAtMs: Date.now(),
      buckets: buckets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    })
    this.#publish(snapshot)
    await this.#saveState(snapshot)
    this.#logger.debug(
      { buckets: buckets.length, failed: buckets.filter((record) => !record.scanSuccess).length, sourceUp },
      'usage scan finished',
    )
    return snapshot
  }

  #publish(snapshot: UsageSnapshot): void {
    this.#snapshot = snapshot
    for (const listener of this.#listeners) {
      try {
        listener(snapshot)
      } catch (error) {
        this.#logger.error({ err: error }, 'snapshot listener failed')
      }
    }
  }

  #reportSource(failure: string | undefined): void {
    const previous = this.#sourceFailure
    this.#sourceFailure = failure
    if (failure === previous) return
    const source = this.#options.source.name
    if (failure) this.#logger.warn({ source, error: failure }, 'usage source unreachable')
    else this.#logger.info({ source }, 'usage source reachable again')
  }

  async #loadState(): Promise<UsageSnapshot | undefined> {
    const { stateFile, source, filter, fixedBuckets } = this.#options
    if (!stateFile) return undefined
    const stale = await removeStaleTemporaries(stateFile)
    if (stale.files > 0)
      this.#logger.info({ stateFile, ...stale }, 'removed temporary files that killed writes left')
    const loaded = await loadState(stateFile, source.id)
    if (loaded.status === 'ignored') {
      this.#logger.warn({ stateFile, reason: loaded.reason }, 'state file ignored')
      return undefined
    }
    if (loaded.status === 'absent') return undefined
    // The selection may have changed since the file was written (SHARD, globs, BUCKETS).
    const wanted = fixedBuckets ? new Set(fixedBuckets) : undefined
    const buckets = loaded.snapshot.buckets.filter(
      (record) => filter(record.name) && (!wanted || wanted.has(record.name)),
    )
    this.#reportRefused(loaded.refused, 'state file records refused; those buckets wait for the next scan')
    this.#logger.info({ stateFile, buckets: buckets.length }, 'usage snapshot loaded from state file')
    return freezeSnapshot({ ...loaded.snapshot, buckets })
  }

  async #saveState(snapshot: UsageSnapshot): Promise<void> {
    const { stateFile } = this.#options
    if (!stateFile) return
    let failure: string | undefined
    try {
      const { refused } = await saveState(stateFile, snapshot)
      this.#reportRefused(refused, 'bucket records left out of the state file')
    } catch (error) {
      failure = (error as Error).message
    }
    if (failure === this.#stateFailure) return
    this.#stateFailure = failure
    if (failure) this.#logger.warn({ stateFile, error: failure }, 'cannot write state file')
    else this.#logger.info({ stateFile }, 'state file written again')
  }

  /** One warning for the records a state file read or write refused (the first ten named). */
  #reportRefused(refused: readonly RefusedRecord[], message: string): void {
    const text = JSON.stringify(refused)
    if (text === this.#lastRefused) return
    this.#lastRefused = text
    if (refused.length === 0) return
    const { stateFile } = this.#options
    this.#logger.warn({ stateFile, count: refused.length, records: refused.slice(0, 10) }, message)
  }
}

function asSourceError(error: unknown): SourceError {
  if (error instanceof SourceError) return error
  return new SourceError(error instanceof Error ? error.message : String(error), 'failed', { cause: error })
}

/** Settles with `promise`, or rejects with the abort reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined)
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Maps `items` through `work`, at most `limit` at a time, keeping the order of `items`. */
async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return results
}
