import type { SourceRequests } from '../sources/request-counter.js'
import type { BucketUsage, ListingProgress } from '../sources/types.js'

/**
 * The progress of the running scan round (issue 26.9): buckets planned and done, current objects
 * and bytes so far, requests sent, the buckets being measured. The round tells it what it starts
 * and ends; a listing source tells each bucket's handle what it has folded, a page (s3) or a
 * walk's batch (fs) at a time. When a bucket ends its handle's count is replaced by the figures of
 * its record, so once every bucket is measured the totals are those of the round's records (the
 * "usage scan finished" line's, which also counts the kept figures of failed buckets). Read by
 * the progress log line, `scan --once`'s bar, the landing page, /api/v1/status and the
 * `scan_round_objects_listed` gauge; reading it does no I/O.
 */

export type RoundPhase = 'listing' | 'measuring' | 'finishing'

/** Bucket names a view carries at most: the ones measured longest. */
const IN_PROGRESS_NAMED = 3

export interface RoundProgressView {
  /** The `source` label: `fs`, `s3`, `rgw`. */
  readonly source: string
  /** When the round started, ms since the epoch. */
  readonly startedAtMs: number
  /** listing: the buckets (or, rgw, every bucket's stats); measuring: the buckets; finishing: the rest. */
  readonly phase: RoundPhase
  /** Buckets selected for the round; undefined while they are listed. */
  readonly buckets: number | undefined
  /** Of those, the ones measured or failed. */
  readonly bucketsDone: number
  /** Of those done, the ones that failed. */
  readonly failed: number
  /** Current objects so far: the records of the buckets done, and what is listed of the others. */
  readonly objects: number
  readonly bytes: number
  /** Requests the source sent since the round started; undefined for a source that sends none (fs). */
  readonly requests: number | undefined
  readonly elapsedSeconds: number
  /** `objects` over `elapsedSeconds`: the round's mean rate. */
  readonly objectsPerSecond: number
  /** Buckets being measured, the longest first, IN_PROGRESS_NAMED at most. */
  readonly inProgress: readonly string[]
  /** How many buckets are being measured. */
  readonly inProgressCount: number
}

class BucketProgress implements ListingProgress {
  objects = 0
  bytes = 0
  constructor(
    readonly name: string,
    private readonly add: (objects: number, bytes: number) => void,
  ) {}
  listed(objects: number, bytes: number): void {
    this.objects += objects
    this.bytes += bytes
    this.add(objects, bytes)
  }
}

export interface RoundProgressOptions {
  readonly source: string
  readonly startedAtMs: number
  /** ms since the epoch: the elapsed time and the rate; Date.now by default (tests inject one). */
  readonly clock?: () => number
  /** The source's request counts, when it sends requests. */
  readonly requests?: SourceRequests | undefined
}

export class RoundProgress {
  readonly #options: RoundProgressOptions
  readonly #requestsAtStart: number | undefined
  readonly #active = new Set<BucketProgress>()
  #phase: RoundPhase = 'listing'
  #buckets: number | undefined
  #done = 0
  #failed = 0
  #objects = 0
  #bytes = 0

  constructor(options: RoundProgressOptions) {
    this.#options = options
    this.#requestsAtStart = options.requests && requestsSent(options.requests)
  }

  /** The buckets are listed and selected: `count` will be measured. */
  planned(count: number): void {
    this.#buckets = count
    this.#phase = 'measuring'
  }

  /** Every bucket is done: what follows (users, outside buckets, the snapshot) is the round's end. */
  finishing(): void {
    this.#phase = 'finishing'
  }

  /** `name` is being measured: its listing tells the handle what it folds. */
  started(name: string): ListingProgress {
    const bucket = new BucketProgress(name, (objects, bytes) => this.#add(objects, bytes))
    this.#active.add(bucket)
    return bucket
  }

  /**
   * A bucket's measuring ended: measured (its record's figures replace what its listing told),
   * failed (what its listing told is taken back: the bucket keeps its last figures), or gone.
   */
  ended(handle: ListingProgress, outcome: { usage: BucketUsage } | { failed: boolean }): void {
    const bucket = handle as BucketProgress
    if (!this.#active.delete(bucket)) return
    this.#done++
    this.#add(-bucket.objects, -bucket.bytes)
    if ('usage' in outcome) this.#add(outcome.usage.objects, outcome.usage.bytes)
    else if (outcome.failed) this.#failed++
  }

  #add(objects: number, bytes: number): void {
    this.#objects += objects
    this.#bytes += bytes
  }

  view(): RoundProgressView {
    const { source, startedAtMs, requests } = this.#options
    const elapsedSeconds = Math.max(0, ((this.#options.clock ?? Date.now)() - startedAtMs) / 1000)
    const inProgress: string[] = []
    for (const bucket of this.#active) {
      if (inProgress.length === IN_PROGRESS_NAMED) break
      inProgress.push(bucket.name)
    }
    return {
      source,
      startedAtMs,
      phase: this.#phase,
      buckets: this.#buckets,
      bucketsDone: this.#done,
      failed: this.#failed,
      objects: this.#objects,
      bytes: this.#bytes,
      requests:
        requests && this.#requestsAtStart !== undefined
          ? requestsSent(requests) - this.#requestsAtStart
          : undefined,
      elapsedSeconds,
      objectsPerSecond: elapsedSeconds > 0 ? this.#objects / elapsedSeconds : 0,
      inProgress,
      inProgressCount: this.#active.size,
    }
  }
}

/** Every request the source sent so far, whatever its operation. */
function requestsSent(requests: SourceRequests): number {
  let sent = 0
  for (const count of requests.counts().requests.values()) sent += count
  return sent
}
