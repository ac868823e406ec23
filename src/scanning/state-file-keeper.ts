import type { Logger } from 'pino'
import { keptInSlices } from '../event-loop-slices.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import {
  loadState,
  type RefusedRecord,
  removeStaleTemporaries,
  type StateLoad,
  saveState,
} from '../snapshot/state-file.js'

/*
 * The scanner's state file: loaded once at start, written after each round, each step logged once
 * per change. Neither may hold the scanner up: the file may sit on a network mount that stops
 * answering, where a call waits in the kernel for ever. A load that goes `stallMs` without an
 * answer is given up (the buckets are scanned instead), and a write that does not end within it
 * is left pending while the next rounds go on unwritten. A call stuck in the kernel cannot be
 * taken back: it keeps one of libuv's threads until it returns.
 */

export interface StateFileKeeperOptions {
  readonly path: string
  readonly sourceId: string
  readonly logger: Logger
  /** STATE_FILE_TIMEOUT_SECONDS, in ms. */
  readonly stallMs: number
  /** Whether a loaded record's bucket is still selected (SHARD, globs, BUCKETS may have changed). */
  readonly selected: (name: string) => boolean
  /**
   * The start's check of what the path is (state-file-kind.ts), already under way: the load waits
   * for it rather than asking again (a second call on a hung mount would hold a second thread).
   */
  readonly kindProblem?: Promise<string | undefined>
}

/** A slow load is logged once, after this long. */
const SLOW_LOAD_MS = 5000

export class StateFileKeeper {
  readonly #options: StateFileKeeperOptions
  readonly #logger: Logger
  #writeFailure: string | undefined
  #pendingWrite: Promise<void> | undefined
  #skippedWrites = 0
  /** The records last refused, so the same refusal is not logged after every scan. */
  #lastRefused = '0 []'

  constructor(options: StateFileKeeperOptions) {
    this.#options = options
    this.#logger = options.logger
  }

  /** The snapshot the file holds (its buckets still selected) and how many records it refused; undefined for none. */
  async load(): Promise<{ snapshot: UsageSnapshot; refusedCount: number } | undefined> {
    const { path: stateFile, stallMs } = this.#options
    const startedMs = Date.now()
    let lastAnswerMs = startedMs
    const answered = () => {
      lastAnswerMs = Date.now()
    }
    const loading = (async (): Promise<StateLoad> => {
      const kind = await this.#options.kindProblem
      answered()
      if (kind !== undefined) return { status: 'ignored', reason: kind }
      const stale = await removeStaleTemporaries(stateFile)
      answered()
      if (stale.files > 0)
        this.#logger.info({ stateFile, ...stale }, 'removed temporary files that killed writes left')
      return loadState(stateFile, this.#options.sourceId, Date.now(), undefined, answered)
    })()
    const loaded = await new Promise<StateLoad | undefined>((resolve) => {
      let slowLogged = false
      const timer = setInterval(() => {
        const nowMs = Date.now()
        if (!slowLogged && nowMs - startedMs >= SLOW_LOAD_MS) {
          slowLogged = true
          this.#logger.warn({ stateFile, seconds: (nowMs - startedMs) / 1000 }, 'state file slow to load')
        }
        if (nowMs - lastAnswerMs < stallMs) return
        clearInterval(timer)
        this.#logger.warn(
          { stateFile, seconds: stallMs / 1000 },
          'state file not answering (a hung mount?); scanning without it',
        )
        resolve(undefined)
      }, Math.min(stallMs, SLOW_LOAD_MS) / 4)
      loading.then(
        (result) => {
          clearInterval(timer)
          resolve(result)
        },
        (error: unknown) => {
          clearInterval(timer)
          resolve({ status: 'ignored', reason: `cannot read it: ${(error as Error).message}` })
        },
      )
    })
    if (loaded === undefined || loaded.status === 'absent') return undefined
    if (loaded.status === 'ignored') {
      this.#logger.warn({ stateFile, reason: loaded.reason }, 'state file ignored')
      return undefined
    }
    const buckets = await keptInSlices(loaded.snapshot.buckets, (record) =>
      this.#options.selected(record.name),
    )
    this.#reportRefused(
      { named: loaded.refused, count: loaded.refusedCount },
      'state file records refused; a scan starts at once to measure those buckets',
    )
    if (loaded.usersRefused)
      this.#logger.warn({ stateFile, reason: loaded.usersRefused }, 'state file users refused')
    this.#logger.info({ stateFile, buckets: buckets.length }, 'usage snapshot loaded from state file')
    return { snapshot: { ...loaded.snapshot, buckets }, refusedCount: loaded.refusedCount }
  }

  /**
   * Writes `snapshot`, waiting at most `stallMs` for it; skipped (and counted in one line) while
   * an earlier write has not ended.
   */
  async save(snapshot: UsageSnapshot): Promise<void> {
    const { path: stateFile, stallMs } = this.#options
    if (this.#pendingWrite) {
      if (this.#skippedWrites++ === 0)
        this.#logger.warn(
          { stateFile },
          'state file write still pending; later snapshots not written until it ends',
        )
      return
    }
    const writing = this.#write(snapshot).finally(() => {
      this.#pendingWrite = undefined
      if (this.#skippedWrites > 0)
        this.#logger.info({ stateFile, skipped: this.#skippedWrites }, 'state file write ended')
      this.#skippedWrites = 0
    })
    this.#pendingWrite = writing
    let timer: NodeJS.Timeout | undefined
    await Promise.race([writing, new Promise<void>((resolve) => (timer = setTimeout(resolve, stallMs)))])
    clearTimeout(timer)
  }

  async #write(snapshot: UsageSnapshot): Promise<void> {
    const { path: stateFile } = this.#options
    let failure: string | undefined
    try {
      const { refused } = await saveState(stateFile, snapshot)
      this.#reportRefused(refused, 'bucket records left out of the state file')
    } catch (error) {
      failure = (error as Error).message
    }
    if (failure === this.#writeFailure) return
    this.#writeFailure = failure
    if (failure) this.#logger.warn({ stateFile, error: failure }, 'cannot write state file')
    else this.#logger.info({ stateFile }, 'state file written again')
  }

  /** One warning for the records a state file read or write refused (the first ten named). */
  #reportRefused(
    refused: { readonly named: readonly RefusedRecord[]; readonly count: number },
    message: string,
  ): void {
    const text = `${refused.count} ${JSON.stringify(refused.named)}`
    if (text === this.#lastRefused) return
    this.#lastRefused = text
    if (refused.count === 0) return
    const { path: stateFile } = this.#options
    this.#logger.warn({ stateFile, count: refused.count, records: refused.named.slice(0, 10) }, message)
  }
}
