/*
 * A bucket's figures: what they are (the BucketUsage type, derived from the record's schema in
 * bucket-usage-schema.ts, which the state file's check compiles) and how a listing folds into
 * them: the record's first figures here, and each figure of src/figures/ by its own fold step
 * (a new figure is a folder there: its properties, fold step, combination and families). The schema is a module
 * of its own so that the fold loads no TypeBox: the fs walk's threads import the fold, and
 * TypeBox's hundreds of modules cost each thread ~130 ms of CPU per scan (a third of `du -sb` on
 * 200,000 files).
 */
import type { Static } from '@sinclair/typebox'
import { AgeFold, ageSlot } from '../figures/age/bands.js'
import { type FigureValues, figureFolds } from '../figures/assemble.js'
import type { Frozen } from '../figures/deep-readonly.js'
import { topPrefixes } from '../figures/prefixes/sketch.js'
import type { FigureFold, ListedObject, UsageFoldOptions } from '../figures/types.js'
import type { BucketUsageSchema, MultipartUsageSchema, VersionUsageSchema } from './bucket-usage-schema.js'
import {
  MINIO_SIZE_RANGES,
  MINIO_VERSION_RANGES,
  minioSizeSlot,
  minioVersionSlot,
  OBJECT_SIZE_BOUNDS,
  sizeBoundSlot,
} from './size-ranges.js'

export type BucketUsage = Frozen<Static<typeof BucketUsageSchema>>
export type VersionUsage = Frozen<Static<typeof VersionUsageSchema>>
export type MultipartUsage = Frozen<Static<typeof MultipartUsageSchema>>

/** A byte or object count a source may report: a non-negative safe integer (never NaN, -1, 1e300). */
export function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}

/**
 * The largest figure a record holds: 2^53 - 1 bytes (about 9 PB), the largest whole number a
 * double holds exactly. A bucket whose figures pass it is not measured (its scan fails with a
 * reason naming the limit), so what the fold, the state file and the exposition hold is exact;
 * docs/metrics.md says so.
 */
const MAX_FIGURE = Number.MAX_SAFE_INTEGER
const LIMIT_TEXT = `2^53 - 1 (${MAX_FIGURE} bytes, about 9 PB), the largest figure kept exactly`

/** A bucket whose figures pass MAX_FIGURE: it fails rather than be served rounded. */
export class FigureBeyondLimit extends RangeError {}

/** A whole number as it is, not as a double prints it (4611686018427388000 for 2^62). */
function shownWhole(value: number): string {
  return Number.isInteger(value) ? BigInt(value).toString() : String(value)
}

/** Sizes reach the fold only checked: one bad figure would make a bucket's total NaN. */
function checkedSize(size: number): number {
  if (isCount(size)) return size
  if (Number.isInteger(size) && size > 0)
    throw new FigureBeyondLimit(`object size ${shownWhole(size)} bytes is beyond ${LIMIT_TEXT}`)
  throw new RangeError(`object size ${String(size)} is not a whole number of bytes`)
}

/** `sum` (a bucket's running total of `what`) if still exact; the bucket fails beyond the limit. */
export function checkedSum(sum: number, what: string): number {
  if (sum <= MAX_FIGURE) return sum
  throw new FigureBeyondLimit(`the bucket's ${what} pass ${LIMIT_TEXT}`)
}

export type { ListedObject, UsageFoldOptions }

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
  readonly #figures: readonly FigureFold<FigureValues>[]
  /** The prefix figure's fold (src/figures/prefixes/), when prefixes are measured. */
  readonly #prefixes: FigureFold<FigureValues> | undefined

  /**
   * `storageClasses`: whether the source knows storage classes (a filesystem does not); `nowMs`:
   * the scan's start, which ages are measured against; `ages`: whether to fold age bands (the
   * `age` group, src/figures/age/; default true); `prefixTopK`: PREFIX_TOP_K when prefixes are
   * measured (each add() then names its prefix).
   */
  constructor(options: UsageFoldOptions) {
    this.#figures = figureFolds(options)
    this.#prefixes = this.#figures.find((figure) => figure.addToPrefix)
  }

  /** Current objects folded so far (a walk's progress). */
  get objects(): number {
    return this.#objects
  }

  /** Their bytes. */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * One current object (ListedObject: its size, last-modified time, storage class, and the label
   * of its prefix when prefixes are measured); nothing of it is kept.
   */
  add(object: ListedObject): void {
    const { size } = object
    checkedSize(size)
    // Every byte figure of the record is a part of this sum: checked here, they all are.
    this.#bytes = checkedSum(this.#bytes + size, 'bytes')
    this.#objects++
    if (size > this.#largestBytes) this.#largestBytes = size
    ;(this.#sizeHistogram[sizeBoundSlot(size)] as number)++
    ;(this.#sizeRanges[minioSizeSlot(size)] as number)++
    for (const figure of this.#figures) figure.add(object)
  }

  /**
   * Objects already added without a prefix, counted under `prefix` at once (the fs walk sums a
   * folder's files, which share one prefix, and adds them once).
   */
  addPrefix(prefix: string, bytes: number, objects: number): void {
    this.#prefixes?.addToPrefix?.(prefix, bytes, objects)
  }

  finish(): BucketUsage {
    const figures: FigureValues = Object.assign({}, ...this.#figures.map((figure) => figure.finish()))
    // The largest object is given with the times (src/figures/times/): when an object was dated.
    const hasObjects = this.#objects > 0 && figures.newestModifiedSeconds !== undefined
    return {
      bytes: this.#bytes,
      objects: this.#objects,
      sizeHistogram: [...this.#sizeHistogram],
      sizeRanges: [...this.#sizeRanges],
      ...(hasObjects ? { largestObjectBytes: this.#largestBytes } : {}),
      ...figures,
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
    this.#noncurrentBytes = checkedSum(this.#noncurrentBytes + options.size, 'noncurrent bytes')
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
