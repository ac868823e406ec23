/**
 * A versioned listing (S3 ListObjectVersions) folded page by page into a bucket's figures. Pages
 * come sorted by key, each key's entries newest first, but the SDK hands a page's versions and
 * delete markers over as two lists: a key's entries are put back in order here (the latest first,
 * then by last-modified time, newest first) so that each noncurrent version gets the time its
 * successor was written, the moment it became noncurrent. Two entries of one key written in the
 * same millisecond give the same ages in either order. A key may straddle pages: its state is
 * carried into the next page. Memory is one page's entries.
 */
import {
  type BucketUsage,
  UsageAccumulator,
  type UsageFoldOptions,
  VersionAccumulator,
} from './bucket-usage.js'

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

interface KeyState {
  readonly key: string
  entries: number
  onlyNullVersion: boolean
  firstIsDeleteMarker: boolean
  /** Last-modified time of the key's entry folded last: the successor of the next one. */
  previousMs: number | undefined
}

export class VersionListingFold {
  readonly #current: UsageAccumulator
  readonly #versions: VersionAccumulator
  #carried: KeyState | undefined
  readonly #prefixOf: ((key: string) => string) | undefined

  /**
   * `prefixOf` names a key's prefix when prefixes are measured (PREFIX_*: prefixTopK); `hidden`:
   * whether noncurrent ages and expired delete markers are folded (default true).
   */
  constructor(
    options: UsageFoldOptions & {
      readonly prefixOf?: ((key: string) => string) | undefined
      readonly hidden?: boolean | undefined
    },
  ) {
    this.#current = new UsageAccumulator(options)
    this.#prefixOf = options.prefixOf
    this.#versions = new VersionAccumulator({ nowMs: options.nowMs, hidden: options.hidden })
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
    if (carried && !byKey.has(carried.key)) this.#finishKey(carried)
    // Keys in any order: only the one the next page continues with must wait, and it is carried.
    for (const [key, entries] of byKey) {
      const state: KeyState =
        carried?.key === key
          ? carried
          : { key, entries: 0, onlyNullVersion: true, firstIsDeleteMarker: false, previousMs: undefined }
      for (const entry of entries.sort(newestFirst)) this.#addEntry(state, entry)
      if (key === continuesAtKey) this.#carried = state
      else this.#finishKey(state)
    }
  }

  finish(): BucketUsage {
    if (this.#carried) this.#finishKey(this.#carried)
    this.#carried = undefined
    return { ...this.#current.finish(), versions: this.#versions.finish() }
  }

  #addEntry(state: KeyState, entry: VersionEntry): void {
    if (state.entries === 0) state.firstIsDeleteMarker = entry.size === undefined
    state.entries++
    if (state.entries > 1 || (entry.versionId !== undefined && entry.versionId !== 'null')) {
      state.onlyNullVersion = false
    }
    if (entry.size === undefined) {
      this.#versions.addDeleteMarker()
    } else {
      // The first entry of a key is its latest; one listed otherwise has no known successor time.
      const replacedMs = state.previousMs ?? entry.modifiedMs
      this.#versions.addVersion({ isLatest: entry.isLatest, size: entry.size, replacedMs })
      if (entry.isLatest) {
        this.#current.add({
          size: entry.size,
          modifiedMs: entry.modifiedMs,
          storageClass: entry.storageClass,
          prefix: this.#prefixOf?.(entry.key),
        })
      }
    }
    state.previousMs = entry.modifiedMs
  }

  #finishKey(state: KeyState): void {
    this.#versions.addKey(state.entries, state.onlyNullVersion, state.firstIsDeleteMarker)
  }
}

/** The latest entry first, then the newest; an entry without a time last. */
function newestFirst(a: VersionEntry, b: VersionEntry): number {
  if (a.isLatest !== b.isLatest) return a.isLatest ? -1 : 1
  const am = Number.isNaN(a.modifiedMs) ? Number.NEGATIVE_INFINITY : a.modifiedMs
  const bm = Number.isNaN(b.modifiedMs) ? Number.NEGATIVE_INFINITY : b.modifiedMs
  return bm - am || 0
}
