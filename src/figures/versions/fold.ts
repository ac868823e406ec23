/*
 * The versions figure's fold step: every entry of a versioned listing, each key's entries together
 * and newest first (src/record/version-listing.ts puts them so), folded into the version counts,
 * the noncurrent bytes, the keys per MinIO version-count range and, with the `hidden` group, what
 * that group's step folds (src/figures/hidden/fold.ts: noncurrent versions per age band, expired
 * delete markers). Memory is a few fixed arrays and the key being folded.
 */
import { HiddenVersionFold } from '../hidden/fold.js'
import type { HiddenVersionValues } from '../hidden/parts.js'
import { checkedSum } from '../limits.js'
import type { FigureFold, ListedObject } from '../types.js'
import { MINIO_VERSION_RANGES, minioVersionSlot } from './ranges.js'

export interface VersionValues extends HiddenVersionValues {
  versions: number
  deleteMarkers: number
  noncurrentBytes: number
  versionRanges: number[]
}

/**
 * `nowMs`: the scan's start, which noncurrent ages are measured against; `hidden`: fold them. A
 * class, not a closure: its running sums pass 2^30 and stay in fields, where V8 stores a double in
 * place, not in a closure's context, where every store of one allocates a number (one per entry).
 */
export function versionFold(nowMs: number, hidden: boolean): FigureFold<{ versions: VersionValues }> {
  return new VersionFold(nowMs, hidden)
}

class VersionFold implements FigureFold<{ versions: VersionValues }> {
  #versions = 0
  #deleteMarkers = 0
  #noncurrentBytes = 0
  readonly #versionRanges = new Array<number>(MINIO_VERSION_RANGES.length).fill(0)
  readonly #hidden: HiddenVersionFold | undefined
  // The key being folded: how many entries it has, whether its only entry is the `null` version of
  // an unversioned write (MinIO's UNVERSIONED range), whether its newest is a delete marker.
  #folding = false
  #key: string | undefined = undefined
  #entries = 0
  #onlyNullVersion = true
  #firstIsDeleteMarker = false

  constructor(nowMs: number, hidden: boolean) {
    this.#hidden = hidden ? new HiddenVersionFold(nowMs) : undefined
  }

  add(entry: ListedObject): void {
    if (!this.#folding || entry.key !== this.#key) {
      this.#keyEnds()
      this.#folding = true
      this.#key = entry.key
      this.#entries = 0
      this.#onlyNullVersion = true
      this.#firstIsDeleteMarker = entry.isDeleteMarker === true
    }
    this.#entries++
    if (this.#entries > 1 || (entry.versionId !== undefined && entry.versionId !== 'null'))
      this.#onlyNullVersion = false
    this.#versions++
    if (entry.isDeleteMarker) {
      this.#deleteMarkers++
      return
    }
    if (entry.isLatest !== false) return
    this.#noncurrentBytes = checkedSum(this.#noncurrentBytes + entry.size, 'noncurrent bytes')
    this.#hidden?.noncurrent(entry.size, entry.replacedMs ?? Number.NaN)
  }

  finish(): { versions: VersionValues } {
    this.#keyEnds()
    this.#folding = false
    const hidden = this.#hidden
    return {
      versions: {
        versions: this.#versions,
        deleteMarkers: this.#deleteMarkers,
        noncurrentBytes: this.#noncurrentBytes,
        versionRanges: [...this.#versionRanges],
        ...(hidden ? hidden.finish() : {}),
      },
    }
  }

  #keyEnds(): void {
    if (!this.#folding) return
    ;(this.#versionRanges[minioVersionSlot(this.#onlyNullVersion ? 0 : this.#entries)] as number)++
    this.#hidden?.keyEnds(this.#entries, this.#firstIsDeleteMarker)
  }
}
