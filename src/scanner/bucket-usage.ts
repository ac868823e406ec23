// long: the record and its folds in one place (a per-bucket figure is one property and one fold step here)
/*
 * A bucket's figures, in one place: what they are (the record's schema, from which the BucketUsage
 * type and the state file's check derive) and how a listing folds into them. A per-bucket figure
 * a listing gives is one property and one fold step here, one entry in usage-sums.ts (additive or
 * not: how two records combine, for the fs walk's parts and the `_other` row), plus its family in
 * src/collectors/usage-series.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { AGE_BANDS, AgeFold, ageCounts, ageSlot } from './age-bands.js'
import { BucketIndexSchema, BucketSettingsSchema } from './bucket-settings.js'
import { PrefixFiguresSchema, PrefixSketch, sketchCapacity, topPrefixes } from './prefix-sketch.js'
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
/** One count per AGE_BANDS band, youngest first. */
const AgeCounts = Counts(AGE_BANDS.length)

const VersionUsageSchema = Type.Object({
  /** Every version, delete markers included (MinIO's definition of the version total). */
  versions: Count,
  deleteMarkers: Count,
  noncurrentBytes: Count,
  /** Keys per MINIO_VERSION_RANGES entry. */
  versionRanges: Counts(MINIO_VERSION_RANGES.length),
  /**
   * Noncurrent versions' bytes and count per AGE_BANDS band of how long they have been noncurrent:
   * since their successor (the next newer entry of the key, a delete marker included) was written.
   */
  noncurrentAgeBytes: Type.Optional(AgeCounts),
  noncurrentAgeVersions: Type.Optional(AgeCounts),
  /** Keys whose only entry is a delete marker ("expired object delete markers"). */
  expiredDeleteMarkers: Type.Optional(Count),
})

const MultipartUsageSchema = Type.Object({
  incomplete: Count,
  /** Initiation time of the oldest incomplete upload; absent when none. */
  oldestInitiatedSeconds: Type.Optional(StoreSeconds),
  /** Bytes of the parts of the uploads that were sized (ListParts, a bounded number per bucket). */
  bytes: Type.Optional(Count),
  /** Uploads not sized: past the per-bucket bound, or gone before their parts were listed. */
  unsized: Type.Optional(Count),
  /** Uploads initiated more than MULTIPART_STALE_DAYS before the scan started, and their sized bytes. */
  stale: Type.Optional(Count),
  staleBytes: Type.Optional(Count),
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
  /** Bytes and current objects per AGE_BANDS band of their last-modified time, at the scan's start. */
  ageBytes: Type.Optional(AgeCounts),
  ageObjects: Type.Optional(AgeCounts),
  /** Bytes of current objects per storage class. */
  storageClassBytes: Type.Optional(Type.Record(Type.String(), Count)),
  /** Bytes of current objects per storage class and AGE_BANDS band. */
  storageClassAgeBytes: Type.Optional(Type.Record(Type.String(), AgeCounts)),
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
  /** Bytes and objects by key prefix (PREFIX_DEPTH), when on and the source lists keys (prefix-sketch.ts). */
  prefixes: Type.Optional(PrefixFiguresSchema),
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

/** What a fold of current objects measures (see UsageAccumulator's constructor). */
export interface UsageFoldOptions {
  readonly storageClasses: boolean
  readonly nowMs: number
  readonly ages?: boolean | undefined
  readonly prefixTopK?: number | undefined
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
  readonly #nowMs: number
  readonly #ages: AgeFold | undefined
  readonly #storageClassAges: Map<string, number[]> | undefined
  readonly #prefixes: PrefixSketch | undefined

  /**
   * `storageClasses`: whether the source knows storage classes (a filesystem does not); `nowMs`:
   * the scan's start, which ages are measured against; `ages`: whether to fold age bands (the
   * `age` group; default true); `prefixTopK`: PREFIX_TOP_K when prefixes are measured (each add()
   * then names its prefix).
   */
  constructor(options: UsageFoldOptions) {
    const ages = options.ages ?? true
    this.#storageClassBytes = options.storageClasses ? new Map() : undefined
    this.#storageClassAges = options.storageClasses && ages ? new Map() : undefined
    this.#ages = ages ? new AgeFold() : undefined
    this.#nowMs = options.nowMs
    this.#prefixes = options.prefixTopK ? new PrefixSketch(sketchCapacity(options.prefixTopK)) : undefined
  }

  /**
   * One current object: its size, last-modified time (ms since the epoch), storage class, and the
   * label of its prefix (prefix-sketch.ts: keyPrefix) when prefixes are measured.
   */
  add(size: number, modifiedMs: number, storageClass?: string, prefix?: string): void {
    checkedSize(size)
    this.#bytes += size
    this.#objects++
    if (size > this.#largestBytes) this.#largestBytes = size
    ;(this.#sizeHistogram[sizeBoundSlot(size)] as number)++
    ;(this.#sizeRanges[minioSizeSlot(size)] as number)++
    if (modifiedMs > this.#newestMs) this.#newestMs = modifiedMs
    if (modifiedMs < this.#oldestMs) this.#oldestMs = modifiedMs
    const age = this.#ages ? ageSlot(this.#nowMs, modifiedMs) : 0
    this.#ages?.add(age, size)
    if (this.#storageClassBytes) {
      // S3 leaves StorageClass out for the default class in some stores; AWS calls that STANDARD.
      const key = storageClass || 'STANDARD'
      this.#storageClassBytes.set(key, (this.#storageClassBytes.get(key) ?? 0) + size)
      if (this.#storageClassAges) {
        const ages = this.#storageClassAges.get(key) ?? ageCounts()
        ;(ages[age] as number) += size
        this.#storageClassAges.set(key, ages)
      }
    }
    if (this.#prefixes && prefix !== undefined) this.#prefixes.add(prefix, size)
  }

  /**
   * Objects already added without a prefix, counted under `prefix` at once (the fs walk sums a
   * folder's files, which share one prefix, and adds them once).
   */
  addPrefix(prefix: string, bytes: number, objects: number): void {
    this.#prefixes?.add(prefix, bytes, objects)
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
      ...(this.#ages ? { ageBytes: [...this.#ages.bytes], ageObjects: [...this.#ages.counts] } : {}),
      ...(this.#storageClassBytes ? { storageClassBytes: Object.fromEntries(this.#storageClassBytes) } : {}),
      ...(this.#storageClassAges ? { storageClassAgeBytes: Object.fromEntries(this.#storageClassAges) } : {}),
      // Every tracked prefix, so partial folds still merge; the source cuts them to the top K.
      ...(this.#prefixes ? { prefixes: this.#prefixes.figures() } : {}),
    }
  }
}

/**
 * The version figures of a versioned listing, folded key by key (version-listing.ts puts a key's
 * entries in order and says when each noncurrent version was replaced).
 */
export class VersionAccumulator {
  #versions = 0
  #deleteMarkers = 0
  #noncurrentBytes = 0
  #expiredDeleteMarkers = 0
  readonly #versionRanges = new Array<number>(MINIO_VERSION_RANGES.length).fill(0)
  readonly #noncurrentAges: AgeFold | undefined
  readonly #nowMs: number

  /**
   * `nowMs`: the scan's start, which noncurrent ages are measured against; `hidden`: whether to
   * fold noncurrent ages and expired delete markers (the `hidden` group; default true).
   */
  constructor(options: { nowMs: number; hidden?: boolean | undefined }) {
    this.#nowMs = options.nowMs
    this.#noncurrentAges = (options.hidden ?? true) ? new AgeFold() : undefined
  }

  /** One version; a noncurrent one with the time its successor was written (ms since the epoch). */
  addVersion(options: { isLatest: boolean; size: number; replacedMs?: number }): void {
    checkedSize(options.size)
    this.#versions++
    if (options.isLatest) return
    this.#noncurrentBytes += options.size
    this.#noncurrentAges?.add(ageSlot(this.#nowMs, options.replacedMs ?? Number.NaN), options.size)
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
  addKey(entries: number, onlyNullVersion: boolean, onlyDeleteMarker = false): void {
    ;(this.#versionRanges[minioVersionSlot(onlyNullVersion ? 0 : entries)] as number)++
    if (onlyDeleteMarker && entries === 1) this.#expiredDeleteMarkers++
  }

  finish(): VersionUsage {
    return {
      versions: this.#versions,
      deleteMarkers: this.#deleteMarkers,
      noncurrentBytes: this.#noncurrentBytes,
      versionRanges: [...this.#versionRanges],
      ...(this.#noncurrentAges
        ? {
            noncurrentAgeBytes: [...this.#noncurrentAges.bytes],
            noncurrentAgeVersions: [...this.#noncurrentAges.counts],
            expiredDeleteMarkers: this.#expiredDeleteMarkers,
          }
        : {}),
    }
  }
}

/**
 * The figures as served: prefixes cut to the `topK` largest (the rest become the `_other` row). A
 * source calls it once its folds are merged: cut figures no longer merge exactly.
 */
export function withTopPrefixes(usage: BucketUsage, topK: number): BucketUsage {
  return usage.prefixes ? { ...usage, prefixes: topPrefixes(usage.prefixes, topK) } : usage
}
