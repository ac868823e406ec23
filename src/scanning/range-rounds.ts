import { type BucketRecord, type RangeSummary, rangeSummary } from '../snapshot/snapshot.js'
import { measuredObjects, subtotalsOf } from '../snapshot/stored-records.js'
import { type BucketRanges, type RangesRequest, rangeEnds } from '../sources/subtotals.js'
import { shardHash } from './bucket-filter.js'
import { DirtyRanges, type KeyChanges } from './dirty-ranges.js'

/**
 * Which key ranges of a big bucket a round lists again (issue 25): the dirty ones (a change event
 * named a key in them, or their last listing failed) and, of the clean ones, those whose end's
 * hash modulo SCAN_FULL_EVERY (K) is the round's turn modulo K, or that were listed K turns ago or
 * more: every range is listed at least every K rounds whatever events said. K=1 keeps no
 * subtotals (every bucket listed whole every round, as before); a bucket below
 * SCAN_SUBTOTALS_MIN_OBJECTS (half of it once it has ranges) is listed whole.
 */

export interface SubtotalSettings {
  /** SCAN_FULL_EVERY: rounds within which every range is listed again; 1: no subtotals. */
  readonly fullEvery: number
  /** SCAN_SUBTOTALS_MIN_OBJECTS: a bucket with at least this many objects keeps subtotals. */
  readonly minObjects: number
  /** SCAN_RANGE_MAX_OBJECTS: a range listed again that holds more is split. */
  readonly maxEntries: number
}

/** What a bucket's ranged measure was asked, and the marks it took (put back if it fails). */
export interface RangedBegin {
  readonly request: RangesRequest
  readonly taken: Uint8Array | undefined
}

export class RangeRounds {
  readonly #settings: SubtotalSettings
  readonly #dirty = new DirtyRanges()

  constructor(settings: SubtotalSettings) {
    this.#settings = settings
  }

  /** Where change events mark keys. */
  get keyChanges(): KeyChanges {
    return this.#dirty
  }

  /** The request for a bucket that keeps subtotals this round; undefined for one listed whole. */
  begin(bucket: string, previous: BucketRecord | undefined): RangedBegin | undefined {
    const { fullEvery, minObjects, maxEntries } = this.#settings
    const subtotals = fullEvery > 1 ? subtotalsOf(previous) : undefined
    const entries = subtotals
      ? subtotals.subtotals.reduce((sum, subtotal) => sum + subtotal.entries, 0)
      : ((previous && measuredObjects(previous)) ?? 0)
    if (fullEvery <= 1 || entries < (subtotals ? minObjects / 2 : minObjects)) {
      this.#dirty.forget(bucket)
      return undefined
    }
    const turn = (subtotals?.turn ?? 0) + 1
    const sizes = { maxEntries }
    if (!subtotals) {
      this.#dirty.track(bucket)
      return { request: { previous: undefined, relist: undefined, turn, sizes }, taken: undefined }
    }
    const list = subtotals.subtotals
    if (this.#dirty.rangeCount(bucket) !== list.length) this.#dirty.install(bucket, rangeEnds(list))
    const taken = this.#dirty.take(bucket) ?? new Uint8Array(list.length)
    const relist = new Uint8Array(list.length)
    list.forEach((subtotal, index) => {
      const due =
        taken[index] === 1 ||
        turn - subtotal.listedTurn >= fullEvery ||
        shardHash(subtotal.through ?? '') % fullEvery === turn % fullEvery
      relist[index] = due ? 1 : 0
    })
    return { request: { previous: subtotals, relist, dirty: taken, turn, sizes }, taken }
  }

  /** After the bucket was measured: its ranges (undefined: listed whole) with the marks made meanwhile. */
  measured(bucket: string, ranges: BucketRanges | undefined): BucketRanges | undefined {
    if (!ranges) {
      this.#dirty.forget(bucket)
      return undefined
    }
    this.#dirty.install(bucket, rangeEnds(ranges.subtotals))
    return { ...ranges, dirtyRanges: this.#dirty.dirtyCount(bucket) }
  }

  /** The ranges of records loaded from the state file, so marks count before the first round. */
  adopt(records: readonly BucketRecord[]): void {
    for (const record of records) {
      const subtotals = record.ranges ? subtotalsOf(record) : undefined
      if (subtotals) this.#dirty.install(record.name, rangeEnds(subtotals.subtotals))
    }
  }

  /** Forgets the marks of buckets the round no longer has. */
  keepOnly(buckets: { has(bucket: string): boolean }): void {
    this.#dirty.keepOnly(buckets)
  }

  /** The bucket's measure failed: the marks it took stay (its dirty ranges are listed next round). */
  failed(bucket: string, begun: RangedBegin | undefined): void {
    if (begun?.taken) this.#dirty.restore(bucket, begun.taken)
  }
}

/** A record's range part after a round: the new ranges, or the last ones kept with a failed bucket's figures. */
export function rangeParts(ranges: BucketRanges | undefined): {
  ranges?: RangeSummary
  subtotals?: BucketRanges
} {
  return ranges ? { ranges: rangeSummary(ranges), subtotals: ranges } : {}
}
