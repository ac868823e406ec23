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
import { type FigureValues, figureFolds } from '../figures/assemble.js'
import type { Frozen } from '../figures/deep-readonly.js'
import { checkedSize, checkedSum } from '../figures/limits.js'
import { topPrefixes } from '../figures/prefixes/sketch.js'
import type { FigureFold, ListedObject, UsageFoldOptions } from '../figures/types.js'
import type { BucketUsageSchema } from './bucket-usage-schema.js'

export type BucketUsage = Frozen<Static<typeof BucketUsageSchema>>
export type VersionUsage = NonNullable<BucketUsage['versions']>
export type MultipartUsage = NonNullable<BucketUsage['multipart']>

export { checkedSum, FigureBeyondLimit, isCount } from '../figures/limits.js'

export type { ListedObject, UsageFoldOptions }

/**
 * Folds current objects into a bucket's figures one at a time: memory is a few fixed arrays
 * (plus one entry per storage class), whatever the number of objects, so a listing is folded page
 * by page and never held.
 */
export class UsageAccumulator {
  #bytes = 0
  #objects = 0
  readonly #figures: readonly FigureFold<FigureValues>[]
  /** The figures that take every entry of a versioned listing; undefined for a listing of current objects. */
  readonly #versionFigures: readonly FigureFold<FigureValues>[] | undefined
  /** The prefix figure's fold (src/figures/prefixes/), when prefixes are measured. */
  readonly #prefixes: FigureFold<FigureValues> | undefined

  /**
   * `storageClasses`: whether the source knows storage classes (a filesystem does not); `nowMs`:
   * the scan's start, which ages are measured against; `ages`: whether to fold age bands (the
   * `age` group, src/figures/age/; default true); `prefixTopK`: PREFIX_TOP_K when prefixes are
   * measured (each add() then names its prefix); `versions`: the listing is versioned, every
   * entry is added (the figures that take them, src/figures/versions/, fold them all; the others
   * the current ones).
   */
  constructor(options: UsageFoldOptions) {
    this.#figures = figureFolds(options)
    this.#versionFigures = options.versions ? figureFolds(options, 'versions') : undefined
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
   * of its prefix when prefixes are measured), or with `versions` every entry of a versioned
   * listing, in key order (version-listing.ts); nothing of it is kept.
   */
  add(object: ListedObject): void {
    const { size } = object
    const versionFigures = this.#versionFigures
    if (versionFigures === undefined) checkedSize(size)
    else {
      if (!object.isDeleteMarker) checkedSize(size)
      for (let index = 0; index < versionFigures.length; index++)
        (versionFigures[index] as FigureFold<FigureValues>).add(object)
      // A noncurrent version or a delete marker is no current object.
      if (object.isLatest === false || object.isDeleteMarker) return
    }
    // Every byte figure of the record is a part of this sum: checked here, they all are.
    this.#bytes = checkedSum(this.#bytes + size, 'bytes')
    this.#objects++
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
    const figures: FigureValues = Object.assign(
      {},
      ...this.#figures.map((figure) => figure.finish()),
      ...(this.#versionFigures ?? []).map((figure) => figure.finish()),
    )
    return {
      bytes: this.#bytes,
      objects: this.#objects,
      ...figures,
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
