/**
 * The contract between the scanner and a usage source. A source is one file under sources/ that
 * exports a factory returning a UsageSource; the scanner owns scheduling, bucket selection,
 * concurrency, per-bucket timeouts, the snapshot and the state file.
 *
 * Two shapes of source fit the same contract:
 * - listing sources (fs, s3) enumerate buckets in beginScan() and do the work in measure(), one
 *   bucket at a time, SCAN_CONCURRENCY at once;
 * - bulk sources (an admin API that returns every bucket's stats in a few requests) do the work in
 *   beginScan() and answer measure() from what they fetched, so concurrency costs nothing.
 * Everything a source returns is plain data (no classes), so snapshots stay serialisable and the
 * exposition can be rendered once per snapshot.
 */

/** What a source measured for one bucket. Optional parts are families the source cannot give. */
export interface BucketUsage {
  /** Bytes of current objects (the latest version of each key, delete markers excluded). */
  readonly bytes: number
  readonly objects: number
  /**
   * Current objects per OBJECT_SIZE_BOUNDS slot (not cumulative); one count more than there are
   * bounds, the last for sizes above the largest bound (+Inf). Its sum is `bytes`.
   */
  readonly sizeHistogram?: readonly number[]
  /** Current objects per MINIO_SIZE_RANGES entry (disjoint ranges, MinIO's aggregate not included). */
  readonly sizeRanges?: readonly number[]
  /** Last-modified times of the newest and oldest current object, seconds since the epoch. */
  readonly newestModifiedSeconds?: number
  readonly oldestModifiedSeconds?: number
  /** Bytes of current objects per storage class. */
  readonly storageClassBytes?: Readonly<Record<string, number>>
  /** Present when versions were listed (SCAN_VERSIONS and a store that supports it). */
  readonly versions?: VersionUsage
  /** Present when the store lists multipart uploads. */
  readonly multipart?: MultipartUsage
  /** Present when the source knows a quota for the bucket. */
  readonly quotaBytes?: number
  /**
   * Entries below the bucket that could not be read and are not counted (fs: a path longer than
   * PATH_MAX, an I/O error, no permission); present for sources that walk a tree.
   */
  readonly unreadableEntries?: number
}

export interface VersionUsage {
  /** Every version, delete markers included (MinIO's definition of the version total). */
  readonly versions: number
  readonly deleteMarkers: number
  readonly noncurrentBytes: number
  /** Keys per MINIO_VERSION_RANGES entry. */
  readonly versionRanges: readonly number[]
}

export interface MultipartUsage {
  readonly incomplete: number
  /** Initiation time of the oldest incomplete upload, seconds since the epoch; absent when none. */
  readonly oldestInitiatedSeconds?: number
}

export interface BeginScanOptions {
  readonly signal: AbortSignal
  /** BUCKETS: measure exactly these instead of listing (credentials may not allow listing). */
  readonly fixedBuckets?: readonly string[]
}

/** One scan's view of the source, valid until close(). */
export interface ScanRound {
  /** Buckets the source offers this scan, before BUCKETS_INCLUDE / EXCLUDE / SHARD. */
  readonly buckets: readonly string[]
  /** Measures one bucket; rejects with a SourceError. `signal` aborts on the bucket's timeout. */
  measure(bucket: string, signal: AbortSignal): Promise<BucketUsage>
  /** Releases what the round holds (worker threads, fetched stats). */
  close?(): Promise<void>
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
