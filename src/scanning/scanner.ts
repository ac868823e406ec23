import { setMaxListeners } from 'node:events'
import type { Logger } from 'pino'
import { recordsByName, type UsageSnapshot } from '../snapshot/snapshot.js'
import { listingPagesBetween, type SourceRequests } from '../sources/request-counter.js'
import type { UsageSource } from '../sources/types.js'
import type { BucketFilter } from './bucket-filter.js'
import type { KeyChanges } from './dirty-ranges.js'
import { NoBucketsNotice } from './no-buckets.js'
import { logProgressWhileRunning } from './progress-log.js'
import { PublishedSnapshots } from './published-snapshots.js'
import { RangeRounds, type SubtotalSettings } from './range-rounds.js'
import { RoundProgress, type RoundProgressView } from './round-progress.js'
import { RoundSchedule } from './round-schedule.js'
import { logRoundFinished } from './round-summary.js'
import { BucketFailures } from './scan-failures.js'
import { type ScanResult, scanOnce } from './scan-round.js'
import { StateFileKeeper, type StateFileKeeperOptions } from './state-file-keeper.js'

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
  /** STATE_FILE, its time bound and the start's check of what it is; undefined for none. */
  readonly stateFile?: Pick<StateFileKeeperOptions, 'path' | 'stallMs' | 'kindProblem'>
  readonly logger: Logger
  /** When a scan starts (ages are measured against it), ms since the epoch; Date.now by default. */
  readonly clock?: () => number
  /** Between two progress lines of a running round: 15 s (progress-log.ts) unless a test says otherwise. */
  readonly progressIntervalMs?: number | undefined
  /** SCAN_FULL_EVERY and the subtotals' sizes (issue 25); undefined: every bucket listed whole. */
  readonly subtotals?: SubtotalSettings
}

/**
 * Measures bucket usage in the background and publishes the result as an immutable snapshot.
 * One scan at a time; the next starts SCAN_INTERVAL_SECONDS (with jitter) after the previous one
 * ended. Within a scan, SCAN_CONCURRENCY buckets are measured at once, each within
 * SCAN_TIMEOUT_SECONDS. A bucket that fails keeps its last good figures, flagged by its success
 * and timestamp; failures are logged when they change, not on every scan. This class schedules,
 * publishes and keeps the state file; one round (listing, bounds, record merging) is scan-round.ts.
 */
export class UsageScanner {
  readonly #options: UsageScannerOptions
  readonly #logger: Logger
  readonly #controller = new AbortController()
  readonly #bucketFailures: BucketFailures
  readonly #noBuckets = new NoBucketsNotice()
  readonly #published: PublishedSnapshots
  #running: Promise<UsageSnapshot> | undefined
  readonly #schedule: RoundSchedule
  #sourceFailure: string | undefined
  readonly #stateFile: StateFileKeeper | undefined
  /** Listing pages the last completed scan round received, by operation (sources that count). */
  #listingPages: ReadonlyMap<string, number> | undefined
  /** The running round's progress; undefined between rounds. */
  #progress: RoundProgress | undefined
  #closed = false
  readonly #ranges: RangeRounds | undefined

  constructor(options: UsageScannerOptions) {
    this.#options = options
    this.#logger = options.logger
    this.#bucketFailures = new BucketFailures(options.logger)
    this.#published = new PublishedSnapshots(options.logger)
    this.#schedule = new RoundSchedule(options.intervalMs, () => {
      // Failures of the source are in the snapshot; a scan rejects when the scanner closes, or on
      // a bug, which must not pass silently (the next scan is scheduled either way).
      this.scanNow().catch((error: unknown) => {
        if (!this.#closed) this.#logger.error({ err: error }, 'usage scan ended unexpectedly')
      })
    })
    this.#ranges =
      options.subtotals && options.subtotals.fullEvery > 1 ? new RangeRounds(options.subtotals) : undefined
    // Every bucket measured at once listens to the scanner's signal.
    setMaxListeners(0, this.#controller.signal)
    const { stateFile, source, filter, fixedBuckets } = options
    // The selection may have changed since the file was written (SHARD, globs, BUCKETS).
    const wanted = fixedBuckets ? new Set(fixedBuckets) : undefined
    this.#stateFile = stateFile
      ? new StateFileKeeper({
          ...stateFile,
          sourceId: source.id,
          logger: options.logger,
          selected: (name) => filter(name) && (!wanted || wanted.has(name)),
        })
      : undefined
  }

  /**
   * Where change events mark the keys they name (POST /events): the key's range is listed again
   * next round. Marks for a bucket listed whole are dropped.
   */
  get keyChanges(): KeyChanges {
    return this.#ranges ? this.#ranges.keyChanges : { markChanged: () => undefined }
  }

  /** The last completed snapshot (scanned or loaded); undefined until there is one. */
  get snapshot(): UsageSnapshot | undefined {
    return this.#published.latest
  }

  /** When the next scan starts (ms since the epoch); undefined while a scan runs, or once closed. */
  get nextScanAtMs(): number | undefined {
    return this.#schedule.nextAtMs
  }

  /** Why the source failed the last scan (secrets are the page's and the log's to scrub); undefined when up. */
  get sourceFailure(): string | undefined {
    return this.#sourceFailure
  }

  /** The requests the source sent so far, by operation; undefined for a source that sends none (fs). */
  get sourceRequests(): SourceRequests | undefined {
    return this.#options.source.requests
  }

  /** Listing pages of the last scan round this process completed; undefined before one, or for fs. */
  get lastScanListingPages(): ReadonlyMap<string, number> | undefined {
    return this.#listingPages
  }

  /** The running round's progress (no I/O: counts kept as it goes); undefined between rounds. */
  get progress(): RoundProgressView | undefined {
    return this.#progress?.view()
  }

  /** Whether the scanner measures `bucket`: the selection (BUCKETS_INCLUDE/EXCLUDE, SHARD) and BUCKETS. */
  measures(bucket: string): boolean {
    const { filter, fixedBuckets } = this.#options
    return filter(bucket) && (fixedBuckets === undefined || fixedBuckets.includes(bucket))
  }

  /** The current snapshot, or the first one published (rejects if the scanner closes first). */
  firstSnapshot(): Promise<UsageSnapshot> {
    return this.#published.first(this.#controller.signal)
  }

  /** Calls `listener` with each snapshot published from now on; returns the unsubscribe function. */
  onSnapshot(listener: (snapshot: UsageSnapshot) => void): () => void {
    return this.#published.listen(listener)
  }

  /**
   * Loads the state file (if any) and schedules the first scan: at once, or when the loaded
   * snapshot falls due, so a restart neither waits for figures nor rescans a fresh store. Never
   * rejects: the server listens while it runs (a state file on a hung mount must not keep it from
   * answering /healthz), and /readyz waits for the snapshot.
   */
  async start(): Promise<void> {
    let firstDelayMs = 0
    try {
      const loaded = await this.#stateFile?.load()
      if (this.#closed) return
      // Buckets whose records were refused are measured at once, not when the file falls due.
      if (loaded && loaded.refusedCount === 0)
        firstDelayMs = Math.min(
          this.#options.intervalMs,
          Math.max(0, loaded.snapshot.completedAtMs + this.#options.intervalMs - Date.now()),
        )
      if (loaded) {
        this.#published.publish(loaded.snapshot)
        // Change events from now on mark the loaded ranges, before the first round lists them.
        this.#ranges?.adopt(loaded.snapshot.buckets)
      }
    } catch (error) {
      this.#logger.error({ err: error }, 'state file load ended unexpectedly')
    }
    if (!this.#closed) this.#schedule.startIn(firstDelayMs)
  }

  /** Runs a scan now, or joins the one running; resolves with the snapshot it publishes. */
  scanNow(): Promise<UsageSnapshot> {
    if (this.#closed) return Promise.reject(new Error('usage scanner closed'))
    if (this.#running) return this.#running
    this.#schedule.roundStarted()
    const running = this.#scan().finally(() => {
      this.#running = undefined
      this.#schedule.roundEnded()
    })
    this.#running = running
    return running
  }

  /**
   * Asks for a round soon (change events, `POST /events`) instead of SCAN_INTERVAL_SECONDS after
   * the last: `pauseMs` after the last round ended, or after the running one ends. Never overlaps
   * a round, never delays one due sooner; nothing before the schedule begins or once closed.
   */
  requestRound(pauseMs = 0): void {
    this.#schedule.requestRound(pauseMs)
  }

  /** Stops the schedule, aborts a running scan and waits for it to unwind. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#schedule.close()
    this.#controller.abort(new Error('usage scanner closed'))
    await this.#running?.catch(() => undefined)
    await this.#options.source.close()
  }

  async #scan(): Promise<UsageSnapshot> {
    const { source } = this.#options
    const startedAtMs = Date.now()
    this.#logger.debug({ source: source.name }, 'usage scan started')
    const progress = new RoundProgress({ source: source.name, startedAtMs, requests: source.requests })
    this.#progress = progress
    const stopLog = logProgressWhileRunning({
      logger: this.#logger,
      view: () => progress.view(),
      intervalMs: this.#options.progressIntervalMs,
    })
    try {
      return await this.#round(startedAtMs, progress)
    } finally {
      stopLog()
      this.#progress = undefined
    }
  }

  async #round(startedAtMs: number, progress: RoundProgress): Promise<UsageSnapshot> {
    const { source, filter, fixedBuckets, concurrency, timeoutMs } = this.#options
    const requestsBefore = source.requests?.counts()
    const result = await scanOnce({
      source,
      filter,
      ...(fixedBuckets ? { fixedBuckets } : {}),
      concurrency,
      timeoutMs,
      signal: this.#controller.signal,
      previous: recordsByName(this.#published.latest),
      failures: this.#bucketFailures,
      startedMs: (this.#options.clock ?? Date.now)(),
      ...(this.#published.latest?.users ? { previousUsers: this.#published.latest.users } : {}),
      progress,
      ...(this.#ranges ? { ranges: this.#ranges } : {}),
    })
    if (requestsBefore && source.requests)
      this.#listingPages = listingPagesBetween(requestsBefore, source.requests.counts())
    this.#reportSource(result.sourceFailure)
    return this.#finish(result, startedAtMs, progress.view().requests)
  }

  async #finish(result: ScanResult, startedAtMs: number, requests?: number): Promise<UsageSnapshot> {
    const { sourceUp, records: buckets, outsideBucketsBytes, users } = result
    const { source } = this.#options
    const noBuckets = this.#noBuckets.next(source.name, result, this.#published.latest)
    if (noBuckets) this.#logger.warn({ source: source.name }, noBuckets)
    const snapshot: UsageSnapshot = {
      sourceName: source.name,
      sourceId: source.id,
      sourceUp,
      completedAtMs: Date.now(),
      startedAtMs,
      buckets, // sorted by the round: a sort here held the event loop 10-20 ms at 100,000
      ...(outsideBucketsBytes !== undefined ? { outsideBucketsBytes } : {}),
      ...(users ? { users } : {}),
    }
    this.#published.publish(snapshot)
    await this.#stateFile?.save(snapshot)
    await logRoundFinished(this.#logger, {
      buckets,
      durationSeconds: (snapshot.completedAtMs - startedAtMs) / 1000,
      requests,
      sourceUp,
      error: this.#sourceFailure,
    })
    return snapshot
  }

  #reportSource(failure: string | undefined): void {
    const previous = this.#sourceFailure
    this.#sourceFailure = failure
    if (failure === previous) return
    const source = this.#options.source.name
    if (failure) this.#logger.warn({ source, error: failure }, 'usage source unreachable')
    else this.#logger.info({ source }, 'usage source reachable again')
  }
}
