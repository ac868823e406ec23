/**
 * A versioned listing (S3 ListObjectVersions) folded page by page into a bucket's figures. Pages
 * come sorted by key, each key's entries newest first, but the SDK hands a page's versions and
 * delete markers over as two lists: a key's entries are put back in order here (the latest first,
 * then by last-modified time, newest first) so that each noncurrent version gets the time its
 * successor was written, the moment it became noncurrent. Two entries of one key written in the
 * same millisecond give the same ages in either order. A key may straddle pages: its state is
 * carried into the next page. Each entry is then folded (bucket-usage.ts, with `versions`): the
 * current ones as current objects, every one by the versions figure (src/figures/versions/).
 * Memory is one page's entries.
 */
import type { ListedObject } from '../figures/types.js'
import { type BucketUsage, UsageAccumulator, type UsageFoldOptions } from './bucket-usage.js'

/** One entry of a versioned listing: a version (with a size) or a delete marker (without). */
export interface VersionEntry {
  readonly key: string
  readonly versionId: string | undefined
  readonly isLatest: boolean
  /** Last-modified time, ms since the epoch (NaN when the store gave none). */
  readonly modifiedMs: number
  /** The version's size; undefined for a delete marker. */
  readonly size?: number | undefined
  readonly storageClass?: string | undefined
}

/** The key whose entries the next page goes on with, and the time of its entry folded last. */
interface Carried {
  readonly key: string
  /** Last-modified time of the key's entry folded last: the successor of the next one. */
  previousMs: number | undefined
}

export class VersionListingFold {
  readonly #fold: UsageAccumulator
  #carried: Carried | undefined
  readonly #prefixOf: ((key: string) => string) | undefined
  /** One entry handed to the fold for every version (it keeps nothing of it): none allocated per entry. */
  readonly #entry: ListedObject = {
    size: 0,
    modifiedMs: 0,
    storageClass: undefined,
    prefix: undefined,
    key: '',
    versionId: undefined,
    isLatest: false,
    isDeleteMarker: false,
    replacedMs: 0,
  }

  /**
   * `prefixOf` names a key's prefix when prefixes are measured (PREFIX_*: prefixTopK); `hidden`:
   * whether noncurrent ages and expired delete markers are folded (default true).
   */
  constructor(options: UsageFoldOptions & { readonly prefixOf?: ((key: string) => string) | undefined }) {
    this.#fold = new UsageAccumulator({ ...options, versions: true })
    this.#prefixOf = options.prefixOf
  }

  /**
   * One page: its versions and delete markers as listed, and the key the next page starts with
   * when the listing continues (its entries may go on there).
   */
  addPage(
    versions: readonly VersionEntry[],
    deleteMarkers: readonly VersionEntry[],
    continuesAtKey: string | undefined,
  ): void {
    const byKey = new Map<string, VersionEntry[]>()
    for (const entry of [...versions, ...deleteMarkers]) {
      const entries = byKey.get(entry.key)
      if (entries) entries.push(entry)
      else byKey.set(entry.key, [entry])
    }
    const carried = this.#carried
    this.#carried = undefined
    // Keys in any order, but each key's entries one after the other, across pages too (the fold
    // counts a key's entries until the next key comes): the key carried from the last page first,
    // the one the next page goes on with last.
    const first = carried !== undefined && byKey.has(carried.key) ? carried.key : undefined
    const last =
      continuesAtKey !== undefined && continuesAtKey !== first && byKey.has(continuesAtKey)
        ? continuesAtKey
        : undefined
    if (first !== undefined)
      this.#addKey(first, byKey.get(first) as VersionEntry[], carried?.previousMs, continuesAtKey)
    for (const [key, entries] of byKey)
      if (key !== first && key !== last) this.#addKey(key, entries, undefined, continuesAtKey)
    if (last !== undefined) this.#addKey(last, byKey.get(last) as VersionEntry[], undefined, continuesAtKey)
  }

  finish(): BucketUsage {
    this.#carried = undefined
    return this.#fold.finish()
  }

  /**
   * One key's entries of a page, newest first; `previousMs` the time of its entry folded last when
   * it goes on from the last page. The key the next page goes on with is carried.
   */
  #addKey(
    key: string,
    entries: VersionEntry[],
    previousMs: number | undefined,
    continuesAtKey?: string,
  ): void {
    let successorMs = previousMs
    for (const entry of entries.sort(newestFirst)) {
      this.#addEntry(entry, successorMs)
      successorMs = entry.modifiedMs
    }
    if (key === continuesAtKey) this.#carried = { key, previousMs: successorMs }
  }

  /** One entry, `previousMs` the time of its key's entry folded before it (its successor), if any. */
  #addEntry(listed: VersionEntry, previousMs: number | undefined): void {
    const entry = this.#entry
    const isDeleteMarker = listed.size === undefined
    entry.key = listed.key
    entry.versionId = listed.versionId
    entry.isLatest = listed.isLatest
    entry.isDeleteMarker = isDeleteMarker
    entry.size = listed.size ?? 0
    entry.modifiedMs = listed.modifiedMs
    entry.storageClass = listed.storageClass
    // The first entry of a key is its latest; one listed otherwise has no known successor time.
    entry.replacedMs = previousMs ?? listed.modifiedMs
    entry.prefix = listed.isLatest && !isDeleteMarker ? this.#prefixOf?.(listed.key) : undefined
    this.#fold.add(entry)
  }
}

/** The latest entry first, then the newest; an entry without a time last. */
function newestFirst(a: VersionEntry, b: VersionEntry): number {
  if (a.isLatest !== b.isLatest) return a.isLatest ? -1 : 1
  const am = Number.isNaN(a.modifiedMs) ? Number.NEGATIVE_INFINITY : a.modifiedMs
  const bm = Number.isNaN(b.modifiedMs) ? Number.NEGATIVE_INFINITY : b.modifiedMs
  return bm - am || 0
}
