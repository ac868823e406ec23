/*
 * The `hidden` group's step of the versions fold (src/figures/versions/fold.ts), which hands it
 * each noncurrent version and the end of each key: the noncurrent versions per age band of how
 * long they have been noncurrent, and the expired delete markers. A class of fields, called from
 * the versions fold's own: nothing allocated per entry (the versioned fold is hot).
 */
import { AgeFold, ageSlot } from '../age/bands.js'
import type { HiddenVersionValues } from './parts.js'

export class HiddenVersionFold {
  readonly #ages = new AgeFold()
  readonly #nowMs: number
  #expiredDeleteMarkers = 0

  /** `nowMs`: the scan's start, which noncurrent ages are measured against. */
  constructor(nowMs: number) {
    this.#nowMs = nowMs
  }

  /** A noncurrent version of `size` bytes, replaced at `replacedMs` (NaN: unknown, the oldest band). */
  noncurrent(size: number, replacedMs: number): void {
    this.#ages.add(ageSlot(this.#nowMs, replacedMs), size)
  }

  /** A key's entries ended: `entries` of them, the newest a delete marker or not. */
  keyEnds(entries: number, newestIsDeleteMarker: boolean): void {
    // "Expired object delete markers": a key whose only entry is a delete marker.
    if (newestIsDeleteMarker && entries === 1) this.#expiredDeleteMarkers++
  }

  finish(): Required<HiddenVersionValues> {
    return {
      noncurrentAgeBytes: [...this.#ages.bytes],
      noncurrentAgeVersions: [...this.#ages.counts],
      expiredDeleteMarkers: this.#expiredDeleteMarkers,
    }
  }
}
