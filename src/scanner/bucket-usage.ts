/*
 * A bucket's figures, in one place: what they are (the record's schema, from which the BucketUsage
 * type and the state file's check derive) and how a listing folds into them and how two partial
 * folds merge. A per-bucket figure a listing gives is one property, one fold step and one merge
 * step here, plus its family in src/collectors/usage-series.ts: two files.
 */
import { type Static, Type } from '@sinclair/typebox'
import { BucketIndexSchema, BucketSettingsSchema } from './bucket-settings.js'
import {
  MINIO_SIZE_RANGES,
  MINIO_VERSION_RANGES,
  minioSizeSlot,
  minioVersionSlot,
  OBJECT_SIZE_BOUNDS,
  sizeBoundSlot,
} from './size-ranges.js'

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
  /** Size of the largest current object (its key is never kept: it would be an unbounded label). */
  largestObjectBytes: Type.Optional(Count),
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
  /** Ownership and settings (bucket-settings.ts), where the source knows them. */
  settings: Type.Optional(BucketSettingsSchema),
  /** Index shards and their fill (rgw: the bucket stats' num_shards and counters). */
  index: Type.Optional(BucketIndexSchema),
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

/** A byte or object count a source may report: a non-negative safe integer (never NaN, -1, 1e300). */
export function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}

/** Sizes reach the fold only checked: one bad figure would make a bucket's total NaN. */
function checkedSize(size: number): number {
  if (!isCount(size)) throw new RangeError(`object size ${String(size)} is not a whole number of bytes`)
  return size
}

/**
 * Folds current objects into a bucket's figures one at a time: memory is a few fixed arrays
 * (plus one entry per storage class), whatever the number of objects, so a listing is folded page
 * by page and never held.
 */
export class UsageAccumulator {
  #bytes = 0
  #objects = 0
  readonly #sizeHistogram = new Array<number>(OBJECT_SIZE_BOUNDS.length + 1).fill(0)
  readonly #sizeRanges = new Array<number>(MINIO_SIZE_RANGES.length).fill(0)
  #largestBytes = 0
  #newestMs = Number.NEGATIVE_INFINITY
  #oldestMs = Number.POSITIVE_INFINITY
  readonly #storageClassBytes: Map<string, number> | undefined

  /** `storageClasses`: whether the source knows storage classes (a filesystem does not). */
  constructor(options: { storageClasses: boolean }) {
    this.#storageClassBytes = options.storageClasses ? new Map() : undefined
  }

  /** One current object: its size, last-modified time (ms since the epoch), storage class. */
  add(size: number, modifiedMs: number, storageClass?: string): void {
    checkedSize(size)
    this.#bytes += size
    this.#objects++
    if (size > this.#largestBytes) this.#largestBytes = size
    ;(this.#sizeHistogram[sizeBoundSlot(size)] as number)++
    ;(this.#sizeRanges[minioSizeSlot(size)] as number)++
    if (modifiedMs > this.#newestMs) this.#newestMs = modifiedMs
    if (modifiedMs < this.#oldestMs) this.#oldestMs = modifiedMs
    if (this.#storageClassBytes) {
      // S3 leaves StorageClass out for the default class in some stores; AWS calls that STANDARD.
      const key = storageClass || 'STANDARD'
      this.#storageClassBytes.set(key, (this.#storageClassBytes.get(key) ?? 0) + size)
    }
  }

  finish(): BucketUsage {
    const hasObjects = this.#objects > 0 && Number.isFinite(this.#newestMs)
    return {
      bytes: this.#bytes,
      objects: this.#objects,
      sizeHistogram: [...this.#sizeHistogram],
      sizeRanges: [...this.#sizeRanges],
      ...(hasObjects
        ? {
            largestObjectBytes: this.#largestBytes,
            newestModifiedSeconds: this.#newestMs / 1000,
            oldestModifiedSeconds: this.#oldestMs / 1000,
          }
        : {}),
      ...(this.#storageClassBytes ? { storageClassBytes: Object.fromEntries(this.#storageClassBytes) } : {}),
    }
  }
}

/** The version figures of a versioned listing, folded key by key. */
export class VersionAccumulator {
  #versions = 0
  #deleteMarkers = 0
  #noncurrentBytes = 0
  readonly #versionRanges = new Array<number>(MINIO_VERSION_RANGES.length).fill(0)

  addVersion(options: { isLatest: boolean; size: number }): void {
    checkedSize(options.size)
    this.#versions++
    if (!options.isLatest) this.#noncurrentBytes += options.size
  }

  addDeleteMarker(): void {
    this.#versions++
    this.#deleteMarkers++
  }

  /**
   * One key's history, once all its entries were seen: how many versions and delete markers it
   * has, and whether its only entry is the `null` version of an unversioned write (MinIO's
   * UNVERSIONED range).
   */
  addKey(entries: number, onlyNullVersion: boolean): void {
    ;(this.#versionRanges[minioVersionSlot(onlyNullVersion ? 0 : entries)] as number)++
  }

  finish(): VersionUsage {
    return {
      versions: this.#versions,
      deleteMarkers: this.#deleteMarkers,
      noncurrentBytes: this.#noncurrentBytes,
      versionRanges: [...this.#versionRanges],
    }
  }
}

/** Sums two partial figures of one bucket (parts of a walk done on different threads). */
export function mergeUsage(a: BucketUsage, b: BucketUsage): BucketUsage {
  const largest = maxDefined(a.largestObjectBytes, b.largestObjectBytes)
  const newest = maxDefined(a.newestModifiedSeconds, b.newestModifiedSeconds)
  const oldest = minDefined(a.oldestModifiedSeconds, b.oldestModifiedSeconds)
  const storageClassBytes = mergeRecords(a.storageClassBytes, b.storageClassBytes)
  const sizeHistogram = addArrays(a.sizeHistogram, b.sizeHistogram)
  const sizeRanges = addArrays(a.sizeRanges, b.sizeRanges)
  return {
    bytes: a.bytes + b.bytes,
    objects: a.objects + b.objects,
    ...(sizeHistogram ? { sizeHistogram } : {}),
    ...(sizeRanges ? { sizeRanges } : {}),
    ...(largest !== undefined ? { largestObjectBytes: largest } : {}),
    ...(newest !== undefined ? { newestModifiedSeconds: newest } : {}),
    ...(oldest !== undefined ? { oldestModifiedSeconds: oldest } : {}),
    ...(storageClassBytes ? { storageClassBytes } : {}),
    // Settings are the bucket's, not a part's: either part's copy is the bucket's.
    ...((a.settings ?? b.settings) ? { settings: a.settings ?? b.settings } : {}),
    ...((a.index ?? b.index) ? { index: a.index ?? b.index } : {}),
  }
}

function addArrays(a: readonly number[] | undefined, b: readonly number[] | undefined): number[] | undefined {
  if (!a || !b) return a ? [...a] : b ? [...b] : undefined
  return a.map((value, index) => value + (b[index] ?? 0))
}

function mergeRecords(
  a: Readonly<Record<string, number>> | undefined,
  b: Readonly<Record<string, number>> | undefined,
): Record<string, number> | undefined {
  if (!a && !b) return undefined
  const out: Record<string, number> = { ...a }
  for (const [key, value] of Object.entries(b ?? {})) out[key] = (out[key] ?? 0) + value
  return out
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b)
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}
