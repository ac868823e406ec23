import { type Static, Type } from '@sinclair/typebox'
import { MINIO_SIZE_RANGES, MINIO_VERSION_RANGES, OBJECT_SIZE_BOUNDS } from '../size-ranges.js'

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

/** Bytes and counts: whole, non-negative, exact in a double. (JSON has no NaN or Infinity.) */
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
const Counts = (length: number) => Type.Array(Count, { minItems: length, maxItems: length })
/** The range a Date can hold: a store may date an object 1970 or 2100, but nothing beyond this. */
const DATE_LIMIT_SECONDS = 8.64e12
/** A time the store reported (an object's modification, an upload's start), seconds since the epoch. */
const StoreSeconds = Type.Number({ minimum: -DATE_LIMIT_SECONDS, maximum: DATE_LIMIT_SECONDS })

const VersionUsageSchema = Type.Object({
  /** Every version, delete markers included (MinIO's definition of the version total). */
  versions: Count,
  deleteMarkers: Count,
  noncurrentBytes: Count,
  /** Keys per MINIO_VERSION_RANGES entry. */
  versionRanges: Counts(MINIO_VERSION_RANGES.length),
})

const MultipartUsageSchema = Type.Object({
  incomplete: Count,
  /** Initiation time of the oldest incomplete upload; absent when none. */
  oldestInitiatedSeconds: Type.Optional(StoreSeconds),
})

/**
 * What a source measured for one bucket, declared once: the type below and the state file's check
 * of a stored record (state-file.ts) both derive from it, so a new per-bucket figure is one
 * property here (with its bounds), not a type and a schema kept in step. Optional parts are
 * families the source cannot give.
 */
export const BucketUsageSchema = Type.Object({
  /** Bytes of current objects (the latest version of each key, delete markers excluded). */
  bytes: Count,
  objects: Count,
  /**
   * Current objects per OBJECT_SIZE_BOUNDS slot (not cumulative); one count more than there are
   * bounds, the last for sizes above the largest bound (+Inf). Its sum is `bytes`.
   */
  sizeHistogram: Type.Optional(Counts(OBJECT_SIZE_BOUNDS.length + 1)),
  /** Current objects per MINIO_SIZE_RANGES entry (disjoint ranges, MinIO's aggregate not included). */
  sizeRanges: Type.Optional(Counts(MINIO_SIZE_RANGES.length)),
  /** Last-modified times of the newest and oldest current object. */
  newestModifiedSeconds: Type.Optional(StoreSeconds),
  oldestModifiedSeconds: Type.Optional(StoreSeconds),
  /** Bytes of current objects per storage class. */
  storageClassBytes: Type.Optional(Type.Record(Type.String(), Count)),
  /** Present when versions were listed (SCAN_VERSIONS and a store that supports it). */
  versions: Type.Optional(VersionUsageSchema),
  /** Present when the store lists multipart uploads. */
  multipart: Type.Optional(MultipartUsageSchema),
  /** Present when the source knows a quota for the bucket. */
  quotaBytes: Type.Optional(Count),
  /**
   * Entries below the bucket that could not be read and are not counted (fs: a path longer than
   * PATH_MAX, an I/O error, no permission); present for sources that walk a tree.
   */
  unreadableEntries: Type.Optional(Count),
})

/** Read-only all the way down: figures are frozen once measured. */
type Frozen<T> = T extends readonly (infer E)[]
  ? readonly Frozen<E>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T

export type BucketUsage = Frozen<Static<typeof BucketUsageSchema>>
export type VersionUsage = Frozen<Static<typeof VersionUsageSchema>>
export type MultipartUsage = Frozen<Static<typeof MultipartUsageSchema>>

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
