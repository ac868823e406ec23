import { compareKeys, rangeHolding } from '../key-ranges.js'
import type { InventoryFold } from './inventory-fold.js'
import type { InventoryRow } from './rows.js'

/** One key range's rows folded: the keys after the previous range's end up to `through`. */
export interface InventoryPiece {
  /** The range's last key; undefined for the last range (to the end of the bucket). */
  readonly through: string | undefined
  readonly entries: number
  readonly fold: InventoryFold
}

/**
 * An inventory's rows folded per key range (incremental scans, issue 25): each row into the fold
 * of the range holding its key, so the bucket's ranges get subtotals without a LIST request.
 * The ranges are the bucket's own (`throughs`, their ends), or, for a bucket without ranges yet,
 * cut as rows come: the last range is closed once it holds `pieceEntries` rows and a row of a
 * greater key than all it holds comes (so a key's versions are never split, and every row
 * folded so far lies at or before the cut). A row that comes out of key order goes to the range
 * holding its key all the same: every range holds exactly its keys, whatever the order.
 */
export class RangedInventoryFold {
  readonly #newFold: () => InventoryFold
  readonly #throughs: string[]
  readonly #pieces: { entries: number; fold: InventoryFold }[]
  /** Rows after which the last range is cut; undefined when the ranges' ends are given. */
  readonly #cutAfter: number | undefined
  /** Rows routed to the last range so far, and the greatest key among them. */
  #lastRows = 0
  #lastKey: string | undefined
  #rows = 0

  constructor(newFold: () => InventoryFold, throughs: readonly string[] | undefined, pieceEntries: number) {
    this.#newFold = newFold
    this.#throughs = [...(throughs ?? [])]
    this.#cutAfter = throughs === undefined ? Math.max(1, pieceEntries) : undefined
    this.#pieces = Array.from({ length: this.#throughs.length + 1 }, () => ({ entries: 0, fold: newFold() }))
  }

  get rows(): number {
    return this.#rows
  }

  /** A batch of rows, each to its range; rows side by side in one range are folded as one batch. */
  add(rows: readonly InventoryRow[]): void {
    this.#rows += rows.length
    let start = 0
    let range = -1
    for (let index = 0; index < rows.length; index++) {
      const at = this.#route((rows[index] as InventoryRow).key)
      if (at === range) continue
      if (range >= 0) this.#fold(range, rows.slice(start, index))
      start = index
      range = at
    }
    if (range >= 0) this.#fold(range, rows.slice(start))
  }

  /** The ranges in key order, the last without an end. */
  finish(): InventoryPiece[] {
    return this.#pieces.map((piece, index) => ({
      through: this.#throughs[index],
      entries: piece.entries,
      fold: piece.fold,
    }))
  }

  #fold(range: number, rows: InventoryRow[]): void {
    const piece = this.#pieces[range] as { entries: number; fold: InventoryFold }
    piece.entries += rows.length
    piece.fold.add(rows)
  }

  /**
   * The range of `key`, the last one cut first when it is full and `key` lies past all it holds.
   * A key past the last range's greatest is in that range (its end is open): rows in key order,
   * as inventories list them, cost one comparison each, not a search.
   */
  #route(key: string): number {
    const last = this.#lastKey
    if (last !== undefined && compareKeys(key, last) > 0) {
      if (this.#cutAfter !== undefined && this.#lastRows >= this.#cutAfter) {
        this.#throughs.push(last)
        this.#pieces.push({ entries: 0, fold: this.#newFold() })
        this.#lastRows = 0
      }
      this.#lastRows++
      this.#lastKey = key
      return this.#throughs.length
    }
    const at = rangeHolding(this.#throughs, key)
    if (at === this.#throughs.length) {
      this.#lastRows++
      if (last === undefined) this.#lastKey = key
    }
    return at
  }
}
