import type { BucketUsage } from '../record/bucket-usage.js'
import type { UserScan } from '../record/user-usage.js'
import type { ListingSlots } from './listings-in-flight.js'
import type { SourceRequests } from './request-counter.js'
import type { RangedUsage, RangesRequest } from './subtotals.js'

/**
 * The contract between the scanner and a usage source. A source is one folder under sources/ whose
 * index.ts declares it (defineSource, listed in list.ts) with a factory returning a UsageSource;
 * the scanner owns scheduling, bucket selection, concurrency, per-bucket timeouts, the snapshot and
 * the state file.
 *
 * Two shapes of source fit the same contract:
 * - listing sources (fs, s3) enumerate buckets in beginScan() and do the work in measure(), one
 *   bucket at a time, SCAN_CONCURRENCY at once;
 * - bulk sources (an admin API that returns every bucket's stats in a few requests) do the work in
 *   beginScan() and answer measure() from what they fetched, so concurrency costs nothing.
 * Everything a source returns is plain data (no classes), so snapshots stay serialisable and the
 * exposition can be rendered once per snapshot.
 */

export type { BucketUsage, MultipartUsage } from '../record/bucket-usage.js'
export type { UserScan } from '../record/user-usage.js'

export interface BeginScanOptions {
  readonly signal: AbortSignal
  /** BUCKETS: measure exactly these instead of listing (credentials may not allow listing). */
  readonly fixedBuckets?: readonly string[]
  /**
   * When the scan started, ms since the epoch: what every age of the scan (an object's, a
   * noncurrent version's, an upload's) is measured against. The source's clock when not given.
   */
  readonly startedMs?: number
  /**
   * The bucket's figures in the last snapshot (scanned or from the state file), for figures that
   * carry on from them (rgw's usage log counters); undefined when it has none.
   */
  readonly previous?: (bucket: string) => BucketUsage | undefined
}

/** One scan's view of the source, valid until close(). */
export interface ScanRound {
  /** Buckets the source offers this scan, before BUCKETS_INCLUDE / EXCLUDE / SHARD. */
  readonly buckets: readonly string[]
  /**
   * Measures one bucket; rejects with a SourceError. `signal` aborts on the bucket's timeout.
   * `slots` is the round's budget of listings in flight (SCAN_CONCURRENCY); the caller holds one
   * for this bucket, and a source may take spare ones to list parts of the bucket at once.
   * `progress`, when given, is told what the listing has folded so far, a page (s3) or a walk's
   * batch (fs) at a time; a bulk source, which measured in beginScan, need not tell it.
   */
  measure(
    bucket: string,
    signal: AbortSignal,
    slots?: ListingSlots,
    progress?: ListingProgress,
  ): Promise<BucketUsage>
  /**
   * Measures a bucket that keeps per-range subtotals (issue 25, SCAN_FULL_EVERY above 1): lists
   * again the ranges `request.relist` names, keeps the others' subtotals, and answers the merged
   * record with the new ranges. Only sources that list by key (s3) have it.
   */
  measureRanges?(
    bucket: string,
    signal: AbortSignal,
    slots: ListingSlots | undefined,
    request: RangesRequest,
    progress?: ListingProgress,
  ): Promise<RangedUsage>
  /**
   * Bytes of files under the source's data folder but in no bucket's folder (fs: `.minio.sys` and
   * other hidden folders, lost+found, top-level files), measured after the buckets; only sources
   * that own a data folder have it. The drives collector reconciles statfs with it.
   */
  outsideBuckets?(signal: AbortSignal): Promise<number>
  /**
   * Per-user usage and quotas (rgw: RGW_USER_METRICS), measured after the buckets, bounded like a
   * bucket; rejects with a SourceError. Only sources with users have it.
   */
  users?(signal: AbortSignal): Promise<UserScan>
  /** Releases what the round holds (worker threads, fetched stats). */
  close?(): Promise<void>
}

/**
 * What a bucket's listing tells as it goes (the round's progress: a log line, the landing page,
 * the `scan_round_*_listed` gauges). Told a page or a batch at a time, never per object.
 */
export interface ListingProgress {
  /** `objects` more current objects, of `bytes` bytes in all, were folded. */
  listed(objects: number, bytes: number): void
}

export interface UsageSource {
  /** The `source` label of `source_up`: `fs`, `s3`, ... */
  readonly name: string
  /**
   * What this source measures (a directory, an endpoint URL; never a credential). A state file
   * written for another id is foreign and ignored.
   */
  readonly id: string
  /** Enumerates (or fetches, for bulk sources) what one scan needs; rejects when the source is down. */
  beginScan(options: BeginScanOptions): Promise<ScanRound>
  /** Requests sent to the store so far, by operation (sources that send requests: s3, rgw). */
  readonly requests?: SourceRequests
  /** Releases connections; no scan is running when this is called. */
  close(): Promise<void>
}

/**
 * Why a request failed, as the scanner cares: throttled and unavailable are worth retrying with
 * backoff; denied (credentials, permissions), missing (no such bucket) and unsupported are not.
 */
export type FailureKind = 'throttled' | 'unavailable' | 'denied' | 'missing' | 'unsupported' | 'failed'

export class SourceError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'SourceError'
  }

  get retryable(): boolean {
    return this.kind === 'throttled' || this.kind === 'unavailable'
  }
}
