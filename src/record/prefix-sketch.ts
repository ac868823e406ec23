/*
 * Where a bucket's bytes are, by key prefix (PREFIX_DEPTH, PREFIX_TOP_K, PREFIX_DELIMITER): the
 * prefix of a key, its label, and a Space-Saving sketch of bytes per prefix with bounded memory.
 * Used from bucket-usage.ts (the fold and the merge); docs/where-the-bytes-went.md explains the
 * figures and their error bound to operators.
 *
 * The sketch keeps at most `capacity` prefixes (SKETCH_CAPACITY_FACTOR x PREFIX_TOP_K). While a
 * bucket has no more distinct prefixes than that, every figure is exact. Beyond it, an object of an
 * untracked prefix replaces the tracked prefix with the fewest bytes and inherits its bytes
 * (Space-Saving, Metwally et al. 2005, weighted), so:
 *   - the tracked bytes always sum to at most the bucket's bytes (the `_other` row is never
 *     negative, and rows plus `_other` are the bucket's bytes);
 *   - a tracked prefix's bytes overestimate its true bytes by at most `errorBytes`, and an
 *     untracked prefix holds at most `errorBytes`; `errorBytes` <= bucket bytes / capacity;
 *   - a tracked prefix's objects are those listed while it was tracked (a lower bound).
 * Two partial sketches merge (mergePrefixes: the fs walk's threads each fold part of a bucket)
 * with the same guarantees (Cafaro et al.'s parallel Space-Saving merge): a prefix missing from
 * one side is given that side's `errorBytes`, the largest `capacity` are kept.
 */
import type { PrefixSettings } from '../config/env/prefixes.js'
import { copyOutOfPage } from '../figures/copy-out-of-page.js'

export type { PrefixSettings }

/** Prefixes a sketch tracks per PREFIX_TOP_K row served. */
export const SKETCH_CAPACITY_FACTOR = 8
/** A prefix label is cut to this many UTF-16 units, the last being TRUNCATION_MARKER. */
export const PREFIX_LABEL_MAX_LENGTH = 128
export const TRUNCATION_MARKER = '…'
/** The row of keys with no delimiter within the depth (objects at the bucket's top level). */
export const ROOT_PREFIX = '_root'
/** The row of every prefix beyond the top K. */
export const OTHER_PREFIX = '_other'

export function sketchCapacity(topK: number): number {
  return topK * SKETCH_CAPACITY_FACTOR
}

interface PrefixRow {
  readonly prefix: string
  readonly bytes: number
  readonly objects: number
}

export interface PrefixFigures {
  readonly rows: readonly PrefixRow[]
  readonly capacity: number
  readonly errorBytes: number
  readonly cut: boolean
}

/**
 * Where the prefix of `key` ends (just after its `depth`-th delimiter, or its last one when it has
 * fewer), or -1 when the key has no delimiter (it counts under ROOT_PREFIX). A key deeper than the
 * depth counts under its folder at that depth; a shallower one under the folder it is in.
 */
export function prefixEnd(key: string, delimiter: string, depth: number): number {
  let end = -1
  for (let level = 0; level < depth; level++) {
    const at = key.indexOf(delimiter, Math.max(end, 0))
    if (at < 0) break
    end = at + delimiter.length
  }
  return end
}

/**
 * A prefix as a label value: at most PREFIX_LABEL_MAX_LENGTH units, cut ones ending in
 * TRUNCATION_MARKER (prefixes alike in their first 127 units then share a row). A prefix spelled
 * like a reserved row (`_root`, `_other`: only a delimiter ending in `t` or `r` can make one) is
 * shown with a leading backslash, so no two rows share a label.
 */
export function boundedPrefix(prefix: string): string {
  if (prefix === ROOT_PREFIX || prefix === OTHER_PREFIX) return `\\${prefix}`
  if (prefix.length <= PREFIX_LABEL_MAX_LENGTH) return prefix
  let cut = PREFIX_LABEL_MAX_LENGTH - TRUNCATION_MARKER.length
  // Never half a surrogate pair: the label must stay valid UTF-8.
  const last = prefix.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return prefix.slice(0, cut) + TRUNCATION_MARKER
}

/** The prefix label of a key (S3 keys; the fs walk works on bytes and labels its folders itself). */
export function keyPrefix(key: string, settings: PrefixSettings): string {
  const end = prefixEnd(key, settings.delimiter, settings.depth)
  return end < 0 ? ROOT_PREFIX : boundedPrefix(key.slice(0, end))
}

interface Slot {
  prefix: string
  bytes: number
  objects: number
  /** Position in the heap. */
  at: number
}

/**
 * Weighted Space-Saving over prefixes: a map for lookups and a binary min-heap on bytes for the
 * replacement, so an object costs O(1) when its prefix is tracked and O(log capacity) otherwise.
 */
export class PrefixSketch {
  readonly #capacity: number
  readonly #slots = new Map<string, Slot>()
  readonly #heap: Slot[] = []
  #errorBytes = 0

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity ${capacity}`)
    this.#capacity = capacity
  }

  /** One object (or several: a merge adds whole rows) of `prefix`. */
  add(prefix: string, bytes: number, objects = 1): void {
    const slot = this.#slots.get(prefix)
    if (slot) {
      slot.bytes += bytes
      slot.objects += objects
      this.#down(slot.at)
    } else if (this.#heap.length < this.#capacity) {
      // Kept for the whole scan and in the record: never a view into a listing page's text.
      const own = copyOutOfPage(prefix)
      const added: Slot = { prefix: own, bytes, objects, at: this.#heap.length }
      this.#heap.push(added)
      this.#slots.set(own, added)
      this.#up(added.at)
    } else {
      const smallest = this.#heap[0] as Slot
      this.#slots.delete(smallest.prefix)
      // The replaced prefix may have up to its bytes; so may every prefix no longer tracked.
      if (smallest.bytes > this.#errorBytes) this.#errorBytes = smallest.bytes
      smallest.prefix = copyOutOfPage(prefix)
      smallest.bytes += bytes
      smallest.objects = objects
      this.#slots.set(smallest.prefix, smallest)
      this.#down(0)
    }
  }

  figures(): PrefixFigures {
    return {
      rows: sortRows(this.#heap.map(({ prefix, bytes, objects }) => ({ prefix, bytes, objects }))),
      capacity: this.#capacity,
      errorBytes: this.#errorBytes,
      cut: this.#errorBytes > 0,
    }
  }

  #up(index: number): void {
    const heap = this.#heap
    let at = index
    while (at > 0) {
      const parent = (at - 1) >> 1
      if (!less(heap[at] as Slot, heap[parent] as Slot)) break
      this.#swap(at, parent)
      at = parent
    }
  }

  #down(index: number): void {
    const heap = this.#heap
    let at = index
    for (;;) {
      const left = 2 * at + 1
      const right = left + 1
      let smallest = at
      if (left < heap.length && less(heap[left] as Slot, heap[smallest] as Slot)) smallest = left
      if (right < heap.length && less(heap[right] as Slot, heap[smallest] as Slot)) smallest = right
      if (smallest === at) return
      this.#swap(at, smallest)
      at = smallest
    }
  }

  #swap(a: number, b: number): void {
    const heap = this.#heap
    const first = heap[a] as Slot
    const second = heap[b] as Slot
    heap[a] = second
    heap[b] = first
    second.at = a
    first.at = b
  }
}

/** Fewer bytes first; equal bytes: the later prefix first, so the one kept is the earlier (deterministic). */
function less(a: Slot, b: Slot): boolean {
  return a.bytes < b.bytes || (a.bytes === b.bytes && a.prefix > b.prefix)
}

function sortRows(rows: PrefixRow[]): PrefixRow[] {
  return rows.sort((a, b) => b.bytes - a.bytes || (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0))
}

/**
 * Two partial figures of one bucket (parts of a walk), before either was cut to the top K. Each
 * prefix's bytes are its bytes on each side, or that side's errorBytes where it is not tracked
 * (it may have had up to that much there), so no figure underestimates; the `capacity` largest are
 * kept, and what is dropped raises errorBytes. Exact when both sides are and together they have
 * no more than `capacity` prefixes.
 */
export function mergePrefixes(a: PrefixFigures, b: PrefixFigures): PrefixFigures {
  const capacity = Math.max(a.capacity, b.capacity)
  const byPrefix = new Map<string, { bytes: number; objects: number; inA: boolean; inB: boolean }>()
  for (const row of a.rows)
    byPrefix.set(row.prefix, { bytes: row.bytes, objects: row.objects, inA: true, inB: false })
  for (const row of b.rows) {
    const seen = byPrefix.get(row.prefix)
    if (seen) {
      seen.bytes += row.bytes
      seen.objects += row.objects
      seen.inB = true
    } else byPrefix.set(row.prefix, { bytes: row.bytes, objects: row.objects, inA: false, inB: true })
  }
  const rows = sortRows(
    [...byPrefix].map(([prefix, { bytes, objects, inA, inB }]) => ({
      prefix,
      bytes: bytes + (inA ? 0 : a.errorBytes) + (inB ? 0 : b.errorBytes),
      objects,
    })),
  )
  const kept = rows.slice(0, capacity)
  const largestDropped = rows[capacity]?.bytes ?? 0
  const errorBytes = Math.max(a.errorBytes + b.errorBytes, largestDropped)
  return { rows: kept, capacity, errorBytes, cut: a.cut || b.cut || rows.length > capacity }
}

/** The figures as served: the `topK` largest rows; `cut` when the bucket had more prefixes. */
export function topPrefixes(figures: PrefixFigures, topK: number): PrefixFigures {
  if (figures.rows.length <= topK) return figures
  return { ...figures, rows: figures.rows.slice(0, topK), cut: true }
}
