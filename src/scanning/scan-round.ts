import { setImmediate as nextTurn } from 'node:timers/promises'
import { eachInSlices, keptInSlices, Slices } from '../event-loop-slices.js'
import { type BucketRecord, inOrder, type RecordsByName, sortedRecordsByName } from '../snapshot/snapshot.js'
import { figuresOf, subtotalsOf } from '../snapshot/stored-records.js'
import { ListingSlots } from '../sources/listings-in-flight.js'
import type { BucketRanges } from '../sources/subtotals.js'
import type { BucketUsage, ScanRound, UsageSource, UserScan } from '../sources/types.js'
import { SourceError } from '../sources/types.js'
import { bounded } from './bounded.js'
import type { BucketFilter } from './bucket-filter.js'
import { mapConcurrent } from './concurrency.js'
import { type RangeRounds, rangeParts } from './range-rounds.js'
import type { RoundProgress } from './round-progress.js'
import type { BucketFailures } from './scan-failures.js'

/**
 * One scan round: list the buckets (bounded like a bucket), measure those selected
 * SCAN_CONCURRENCY at once each within SCAN_TIMEOUT_SECONDS, and merge each outcome with the
 * bucket's last record. Scheduling, publishing and the state file are the scanner's (scanner.ts).
 */

export interface ScanRoundOptions {
  readonly source: UsageSource
  /** BUCKETS_INCLUDE / BUCKETS_EXCLUDE / SHARD. */
  readonly filter: BucketFilter
  /** BUCKETS: measure these instead of listing. */
  readonly fixedBuckets?: readonly string[]
  readonly concurrency: number
  /** Upper bound for one bucket, and for the listing (SCAN_TIMEOUT_SECONDS). */
  readonly timeoutMs: number
  /** Aborts the round (the scanner closing): the round then rejects with its reason. */
  readonly signal: AbortSignal
  /** The records of the last snapshot, by bucket name. */
  readonly previous: RecordsByName
  readonly failures: BucketFailures
  /** When the round started, ms since the epoch (ages are measured against it); now by default. */
  readonly startedMs?: number
  /** The last snapshot's per-user part, kept when this round cannot read the users. */
  readonly previousUsers?: UserScan
  /** Told what the round plans, starts and ends, and what the listings fold (round-progress.ts). */
  readonly progress?: RoundProgress
  /** Per-range subtotals of big buckets (SCAN_FULL_EVERY); undefined: every bucket listed whole. */
  readonly ranges?: RangeRounds
}

export interface ScanResult {
  /** Up when it answered: listed, and nothing to measure or at least one bucket measured. */
  readonly sourceUp: boolean
  /** Why the source is down; undefined when up. */
  readonly sourceFailure: string | undefined
  /** Sorted by name (as a snapshot's), each bucket once. */
  readonly records: BucketRecord[]
  /** ScanRound.outsideBuckets, when the source has it and it was measured. */
  readonly outsideBucketsBytes?: number
  /** ScanRound.users, or the last ones when they could not be read (not when refused). */
  readonly users?: UserScan
}

type Outcome =
  | {
      readonly ok: true
      readonly usage: BucketUsage
      readonly ranges?: BucketRanges | undefined
      readonly seconds: number
      readonly finishedAtMs: number
    }
  | { readonly ok: false; readonly error: SourceError; readonly seconds: number }

/** Runs one round; rejects only when `options.signal` aborts (or on a bug). */
export async function scanOnce(options: ScanRoundOptions): Promise<ScanResult> {
  const { source, filter, fixedBuckets, concurrency, signal, previous, failures } = options
  let round: ScanRound
  const startedMs = options.startedMs ?? Date.now()
  try {
    // Bounded like a bucket: an endpoint that accepts and never answers must not hold the scan
    // (and every later one) for as long as the HTTP client's own timeouts and retries allow.
    round = await bounded(signal, options.timeoutMs, 'buckets not listed', (boundedSignal) =>
      source.beginScan({
        signal: boundedSignal,
        startedMs,
        previous: (bucket) => figuresOf(previous.get(bucket)),
        ...(fixedBuckets ? { fixedBuckets } : {}),
      }),
    )
  } catch (error) {
    if (signal.aborted) throw signal.reason
    // Nothing was measured: every known bucket keeps its figures (and its last duration) and is
    // flagged as failed, in slices (a copy of each of 100,000 records is tens of milliseconds).
    const records: BucketRecord[] = []
    await eachInSlices(previous.values(), (record) => {
      if (filter(record.name)) records.push({ ...record, scanSuccess: false })
    })
    return {
      sourceUp: false,
      sourceFailure: asSourceError(error).message,
      records,
      ...(options.previousUsers ? { users: options.previousUsers } : {}),
    }
  }
  let records: BucketRecord[]
  let outcomes: Outcome[]
  let outsideBucketsBytes: number | undefined
  let users: UserScan | undefined
  try {
    // Sorted (stores list sorted: checked in one pass, nothing to sort), then each once and
    // selected in slices (100,000: 25 ms). The records merged from them are sorted too.
    const sorted = inOrder(round.buckets) ? round.buckets : [...round.buckets].sort()
    const names = await keptInSlices(sorted, (name, index) => name !== sorted[index - 1] && filter(name))
    options.progress?.planned(names.length)
    // One budget of listings in flight: each bucket holds a slot while measured, and a source that
    // splits a bucket (s3 key ranges) takes the slots the other buckets leave spare.
    const slots = new ListingSlots(concurrency)
    outcomes = await mapConcurrent(names, concurrency, async (name) => {
      const release = await slots.acquire()
      try {
        return await measure(round, name, slots, options)
      } finally {
        release()
      }
    })
    if (signal.aborted) throw signal.reason
    options.progress?.finishing()
    records = []
    // In slices: at 100,000 buckets merging them in one go held the event loop some 150 ms.
    const slices = new Slices()
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string
      const merged = mergeRecord(name, outcomes[index] as Outcome, previous.get(name), options)
      if (merged) records.push(merged)
      if (slices.due) {
        await slices.next()
        if (signal.aborted) throw signal.reason
      }
    }
    outsideBucketsBytes = await measureOutside(round, options)
    users = await measureUsers(round, options)
  } finally {
    await round.close?.()
  }
  const byName = sortedRecordsByName(records)
  // Looked up in the sorted records: a Set of 100,000 names held the event loop 15-100 ms.
  failures.keepOnly({ has: (bucket) => byName.get(bucket) !== undefined })
  options.ranges?.keepOnly({ has: (bucket) => byName.get(bucket) !== undefined })
  // The records merged in this turn, the snapshot published in the next: at 100,000
  // buckets each is tens of milliseconds the event loop would otherwise wait in one go.
  await nextTurn()
  const failure = outcomes.find((outcome) => !outcome.ok)
  const sourceUp = outcomes.length === 0 || outcomes.some((outcome) => outcome.ok)
  return {
    sourceUp,
    sourceFailure: sourceUp
      ? undefined
      : `no bucket could be measured: ${failure?.ok === false ? failure.error.message : ''}`,
    records,
    ...(outsideBucketsBytes !== undefined ? { outsideBucketsBytes } : {}),
    ...(users ? { users } : {}),
  }
}

/**
 * The per-user figures, bounded like a bucket; undefined when the source has none. When they
 * cannot be read the last ones are kept, unless the source refused them (a missing cap): then the
 * families go, as a bucket's would.
 */
async function measureUsers(round: ScanRound, options: ScanRoundOptions): Promise<UserScan | undefined> {
  if (!round.users) return undefined
  try {
    const users = await bounded(options.signal, options.timeoutMs, 'users not measured', (signal) =>
      (round.users as (signal: AbortSignal) => Promise<UserScan>)(signal),
    )
    options.failures.users(undefined)
    return users
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason
    const failure = asSourceError(error)
    options.failures.users(failure)
    return failure.kind === 'denied' ? undefined : options.previousUsers
  }
}

/** The bytes outside bucket folders, bounded like a bucket; undefined when the source has none or failed. */
async function measureOutside(round: ScanRound, options: ScanRoundOptions): Promise<number | undefined> {
  if (!round.outsideBuckets) return undefined
  try {
    const bytes = await bounded(options.signal, options.timeoutMs, 'not measured', (signal) =>
      (round.outsideBuckets as (signal: AbortSignal) => Promise<number>)(signal),
    )
    options.failures.outside(undefined)
    return bytes
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason
    options.failures.outside(asSourceError(error))
    return undefined
  }
}

async function measure(
  round: ScanRound,
  bucket: string,
  slots: ListingSlots,
  options: ScanRoundOptions,
): Promise<Outcome> {
  const started = performance.now()
  const seconds = () => Math.round((performance.now() - started) * 1e6) / 1e9 // whole ns, not binary noise
  const { progress, ranges } = options
  const listing = progress?.started(bucket)
  const begun = ranges && round.measureRanges ? ranges.begin(bucket, options.previous.get(bucket)) : undefined
  try {
    const measured = await bounded(options.signal, options.timeoutMs, 'not measured', (signal) =>
      begun && round.measureRanges
        ? round.measureRanges(bucket, signal, slots, begun.request, listing)
        : round.measure(bucket, signal, slots, listing).then((usage) => ({ usage, ranges: undefined })),
    )
    const kept = ranges && begun ? ranges.measured(bucket, measured.ranges) : undefined
    if (listing) progress?.ended(listing, { usage: measured.usage })
    return { ok: true, usage: measured.usage, ranges: kept, seconds: seconds(), finishedAtMs: Date.now() }
  } catch (error) {
    ranges?.failed(bucket, begun)
    const failure = asSourceError(error)
    const gone = failure.kind === 'missing' && !options.fixedBuckets
    if (listing) progress?.ended(listing, { failed: !gone })
    return { ok: false, error: failure, seconds: seconds() }
  }
}

/** The bucket's record after this scan; undefined when it turned out to be gone. */
function mergeRecord(
  name: string,
  outcome: Outcome,
  previous: BucketRecord | undefined,
  options: ScanRoundOptions,
): BucketRecord | undefined {
  const { failures } = options
  if (outcome.ok) {
    failures.measured(name)
    return {
      name,
      usage: outcome.usage,
      scanSuccess: true,
      scanDurationSeconds: outcome.seconds,
      lastSuccessSeconds: outcome.usage.inventory?.createdSeconds ?? outcome.finishedAtMs / 1000, // inventory: as of its making
      ...rangeParts(outcome.ranges),
    }
  }
  const { error } = outcome
  // Listed a moment ago and missing now: deleted during the scan. A fixed BUCKETS entry that is
  // missing stays, flagged, since the operator asked for it by name.
  if (error.kind === 'missing' && !options.fixedBuckets) {
    failures.gone(name)
    return undefined
  }
  failures.failed(name, error)
  const lastGood = figuresOf(previous)
  return {
    name,
    ...(lastGood ? { usage: lastGood } : {}),
    scanSuccess: false,
    scanDurationSeconds: outcome.seconds,
    ...(previous?.lastSuccessSeconds !== undefined
      ? { lastSuccessSeconds: previous.lastSuccessSeconds }
      : {}),
    ...rangeParts(subtotalsOf(previous)),
  }
}

function asSourceError(error: unknown): SourceError {
  if (error instanceof SourceError) return error
  return new SourceError(error instanceof Error ? error.message : String(error), 'failed', { cause: error })
}
