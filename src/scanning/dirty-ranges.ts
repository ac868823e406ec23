import { rangeAfter, rangeHolding as rangeOf } from '../sources/s3/key-ranges.js'

/**
 * Which key ranges of a bucket changed since they were last listed (issue 25). A change event
 * (POST /events) names a key; the key's range is marked dirty and the next round lists it again.
 * A mark never changes a figure by itself: it only makes a range be listed.
 *
 * Memory is O(ranges): a bucket's range ends and one byte a range, whatever the number of keys
 * marked (a flood of events for millions of keys marks at most every range). A bucket that keeps
 * no subtotals (below the threshold: listed whole every round) has no entry, and its marks are
 * dropped: its next listing sees every change anyway.
 */
export interface KeyChanges {
  /** The key `key` of `bucket` was written or deleted (or may have been). */
  markChanged(bucket: string, key: string): void
}

interface BucketMarks {
  /** The last key of each range but the last, sorted (a range holds the keys after the previous end up to its own). */
  throughs: readonly string[]
  /** One a range: 1 when marked since the marks were last taken. */
  dirty: Uint8Array
  /** How many of `dirty` are set. */
  count: number
}

export class DirtyRanges implements KeyChanges {
  readonly #buckets = new Map<string, BucketMarks>()

  markChanged(bucket: string, key: string): void {
    const marks = this.#buckets.get(bucket)
    if (!marks) return
    const index = rangeOf(marks.throughs, key)
    if (marks.dirty[index] === 1) return
    marks.dirty[index] = 1
    marks.count++
  }

  /**
   * The bucket's ranges are being listed for the first time (or again as one): until `install`
   * names their ends, a mark for it marks the whole bucket, which then maps onto every range.
   */
  track(bucket: string): void {
    if (!this.#buckets.has(bucket))
      this.#buckets.set(bucket, { throughs: [], dirty: new Uint8Array(1), count: 0 })
  }

  /**
   * The bucket's ranges as a round left them (`throughs`: each range's last key but the last
   * range's). Marks made since they were taken are kept: a new range is dirty when it overlaps a
   * range marked under the old ends (the listing may have passed the key before it changed).
   */
  install(bucket: string, throughs: readonly string[]): void {
    const old = this.#buckets.get(bucket)
    const dirty = new Uint8Array(throughs.length + 1)
    let count = 0
    if (old && old.count > 0) {
      for (let index = 0; index < dirty.length; index++) {
        if (!overlapsMarked(old, throughs[index - 1], throughs[index])) continue
        dirty[index] = 1
        count++
      }
    }
    this.#buckets.set(bucket, { throughs: [...throughs], dirty, count })
  }

  /** The marks of the bucket's ranges (one a range, 1 = marked), cleared: later marks are for the next round. */
  take(bucket: string): Uint8Array | undefined {
    const marks = this.#buckets.get(bucket)
    if (!marks) return undefined
    const taken = marks.dirty
    marks.dirty = new Uint8Array(taken.length)
    marks.count = 0
    return taken
  }

  /** Marks put back (a listing that failed): the ranges stay dirty for the next round. */
  restore(bucket: string, taken: Uint8Array): void {
    const marks = this.#buckets.get(bucket)
    if (!marks || marks.dirty.length !== taken.length) return
    for (let index = 0; index < taken.length; index++) {
      if (taken[index] !== 1 || marks.dirty[index] === 1) continue
      marks.dirty[index] = 1
      marks.count++
    }
  }

  /** How many ranges the bucket's marks are kept for; undefined for a bucket without ranges. */
  rangeCount(bucket: string): number | undefined {
    return this.#buckets.get(bucket)?.dirty.length
  }

  /** How many of the bucket's ranges are marked now; 0 for a bucket without ranges. */
  dirtyCount(bucket: string): number {
    return this.#buckets.get(bucket)?.count ?? 0
  }

  /** Forgets a bucket (listed whole again below the threshold). */
  forget(bucket: string): void {
    this.#buckets.delete(bucket)
  }

  /** Forgets every bucket the round no longer has (deleted, or no longer selected). */
  keepOnly(buckets: { has(bucket: string): boolean }): void {
    for (const bucket of this.#buckets.keys()) if (!buckets.has(bucket)) this.#buckets.delete(bucket)
  }
}

/** Whether a marked old range holds any key after `after` up to `through` (undefined: open ends). */
function overlapsMarked(old: BucketMarks, after: string | undefined, through: string | undefined): boolean {
  // Old ranges from the one holding the key just after `after` to the one holding `through`.
  const first = after === undefined ? 0 : rangeAfter(old.throughs, after)
  const last = through === undefined ? old.throughs.length : rangeOf(old.throughs, through)
  for (let index = first; index <= last; index++) if (old.dirty[index] === 1) return true
  return false
}
