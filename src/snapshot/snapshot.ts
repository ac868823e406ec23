import type { UserScan } from '../record/user-usage.js'
import type { BucketRanges } from '../sources/subtotals.js'
import type { BucketUsage } from '../sources/types.js'

/** One bucket as the last scan left it. */
export interface BucketRecord {
  readonly name: string
  /** The last good figures: from this scan when it succeeded, from an earlier one otherwise; absent if never measured. */
  readonly usage?: BucketUsage
  readonly scanSuccess: boolean
  readonly scanDurationSeconds: number
  /** When the bucket was last measured successfully, seconds since the epoch. */
  readonly lastSuccessSeconds?: number
  /** A bucket that keeps per-range subtotals (issue 25): what its families and pages show of them. */
  readonly ranges?: RangeSummary
  /**
   * Its subtotals, for the next round and the state file; read through subtotalsOf() (a stored
   * record keeps them in its line's bytes). Absent for a bucket listed whole.
   */
  readonly subtotals?: BucketRanges
}

/** A bucket's subtotals in a few numbers. */
export interface RangeSummary {
  /** Key ranges with a subtotal each. */
  readonly ranges: number
  /** Ranges marked dirty when the round ended: listed again next round. */
  readonly dirty: number
  /** Share of the bucket's entries listed again in the last round (0 to 1). */
  readonly relistedRatio: number
  /** When the stalest range was listed, seconds since the epoch: what the figures are "as of". */
  readonly oldestListedSeconds: number
}

/**
 * When a bucket's figures are as of, seconds since the epoch: its stalest range's listing for a
 * bucket with per-range subtotals, its last success otherwise; undefined if never measured.
 */
export function asOfSeconds(record: BucketRecord): number | undefined {
  return record.ranges?.oldestListedSeconds ?? record.lastSuccessSeconds
}

/** The summary of a bucket's subtotals. */
export function rangeSummary(ranges: BucketRanges): RangeSummary {
  let entries = 0
  let oldestMs = Number.POSITIVE_INFINITY
  for (const subtotal of ranges.subtotals) {
    entries += subtotal.entries
    oldestMs = Math.min(oldestMs, subtotal.listedMs)
  }
  return {
    ranges: ranges.subtotals.length,
    dirty: ranges.dirtyRanges,
    relistedRatio: entries > 0 ? Math.min(1, ranges.relistedEntries / entries) : 1,
    oldestListedSeconds: Number.isFinite(oldestMs) ? oldestMs / 1000 : 0,
  }
}

/**
 * What scrapes serve: the result of the last completed scan (or the state file), immutable and
 * replaced whole, never edited in place, so a scrape that runs during a scan reads a consistent
 * view and anything derived from a snapshot (a rendered exposition) can be cached by identity.
 * Immutable by type (readonly all the way down, src/figures/deep-readonly.ts), not by Object.freeze: freezing every
 * record cost some 300 ms of CPU at 100,000 buckets on each load and publication, and a frozen
 * array of large counts is rewritten as one boxed number per element, more for every collection
 * to copy and mark. The tests hand the code frozen snapshots (test/support/deep-freeze.ts), so a
 * write to one fails there.
 */
export interface UsageSnapshot {
  /** The `source` label of source_up. */
  readonly sourceName: string
  /** UsageSource.id, to recognise a state file written for another store. */
  readonly sourceId: string
  /** Whether the source answered the scan (listed its buckets and measured at least one, if any). */
  readonly sourceUp: boolean
  /** When the scan finished, ms since the epoch. */
  readonly completedAtMs: number
  /** When the scan started, ms since the epoch (absent in state files of earlier versions). */
  readonly startedAtMs?: number
  /** Sorted by name, each bucket once. */
  readonly buckets: readonly BucketRecord[]
  /**
   * Bytes under the data folder in no bucket's folder (ScanRound.outsideBuckets), from this scan;
   * absent for sources without a data folder, or when it could not be measured.
   */
  readonly outsideBucketsBytes?: number
  /**
   * Per-user usage and quotas (rgw with RGW_USER_METRICS), from this scan or, when it could not be
   * read (but was not refused), the last one; absent for sources without users.
   */
  readonly users?: UserScan
}

/** A snapshot's records by name, as a round looks up the last figures of each bucket it measures. */
export interface RecordsByName {
  get(name: string): BucketRecord | undefined
  values(): Iterable<BucketRecord>
}

/**
 * The records of `snapshot` by name, found by binary search over its sorted buckets: at 100,000
 * buckets a Map of them took some 30 ms of the event loop at the start of every round.
 */
export function recordsByName(snapshot: UsageSnapshot | undefined): RecordsByName {
  return sortedRecordsByName(snapshot?.buckets ?? [])
}

/** Records sorted by name (each once) by name, found by binary search: no pass over them, no Map. */
export function sortedRecordsByName(buckets: readonly BucketRecord[]): RecordsByName {
  return {
    get(name) {
      let low = 0
      let high = buckets.length - 1
      while (low <= high) {
        const middle = (low + high) >>> 1
        const record = buckets[middle] as BucketRecord
        if (record.name === name) return record
        if (record.name < name) low = middle + 1
        else high = middle - 1
      }
      return undefined
    },
    values: () => buckets,
  }
}

/** The order of a snapshot's records: by name, code unit by code unit (as stores list them). */
export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/**
 * Whether `items` are in ascending order of `key` (duplicates side by side): names as stores list
 * them, records as a snapshot (and the state file) holds them.
 */
export function inOrder<T>(items: readonly T[], key: (item: T) => string = String): boolean {
  for (let index = 1; index < items.length; index++)
    if (key(items[index - 1] as T) > key(items[index] as T)) return false
  return true
}
