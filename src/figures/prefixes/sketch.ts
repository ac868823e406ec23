/*
 * Where a bucket's bytes are, by key prefix (PREFIX_DEPTH, PREFIX_TOP_K, PREFIX_DELIMITER): a
 * Space-Saving sketch of bytes per prefix (labels.ts: a key's prefix label) with bounded memory.
 * Used by the figure's fold and merge (index.ts); docs/where-the-bytes-went.md explains the
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
import { copyOutOfPage } from '../copy-out-of-page.js'

/** Prefixes a sketch tracks per PREFIX_TOP_K row served. */
export const SKETCH_CAPACITY_FACTOR = 8

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
