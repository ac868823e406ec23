import type { BucketUsage } from '../record/bucket-usage.js'
import { mergeUsage } from '../record/usage-sums.js'

/**
 * Per-range subtotals of one big bucket (issue 25): the bucket's keys cut into stable ranges, each
 * with its own partial record, so a round lists again only the ranges that changed (or whose turn
 * it is) and keeps the others' figures. The bucket's record is the merge of its ranges' (mergeUsage:
 * additive figures add, the others merge), as a listing in parts already is (ranged-listing.ts):
 * no key, nor any version of one, is in two ranges.
 *
 * Ranges keep their ends across rounds; a range listed again that grew past `maxEntries` is cut
 * into pieces of half that, and two neighbours that together hold at most half of it are merged.
 */

/** One range's partial record. The range holds the keys after the previous range's end up to its own. */
export interface RangeSubtotal {
  /** The range's last key, included; absent for the last range (to the end of the bucket). */
  readonly through?: string
  /** Entries its listing folded: objects, or versions and delete markers (pages' counts). */
  readonly entries: number
  /** When it was listed, ms since the epoch (its ages are measured against the round's start). */
  readonly listedMs: number
  /** The bucket's turn when it was listed (BucketRanges.turn). */
  readonly listedTurn: number
  readonly usage: BucketUsage
}

/** A bucket's ranges as a round left them. */
export interface BucketRanges {
  /** What was listed: current objects, or versions (SCAN_VERSIONS); the other's subtotals are not reused. */
  readonly listing: 'objects' | 'versions'
  /** Counts the bucket's ranged rounds: the rotation's turn (SCAN_FULL_EVERY). */
  readonly turn: number
  /** Sorted by key; the last has no `through`. */
  readonly subtotals: readonly RangeSubtotal[]
  /** Ranges the round listed again, and the entries they held. */
  readonly relistedRanges: number
  readonly relistedEntries: number
  /** Ranges marked dirty when the round ended (events during it, a failed listing). */
  readonly dirtyRanges: number
}

/** What a listing of one range gave: its pieces, in key order, the last ending where the range does. */
export interface Piece {
  readonly through: string | undefined
  readonly entries: number
  readonly usage: BucketUsage
}

export interface RangeSizes {
  /** A range listed again holding more entries than this is cut into pieces of half of it. */
  readonly maxEntries: number
}

/**
 * The pieces of one range listed again as ranges: one range with its old end when it holds at most
 * `maxEntries` (its ends stay put), the pieces otherwise (a short last piece joined to the one before).
 */
export function relistedRanges(
  pieces: readonly Piece[],
  sizes: RangeSizes,
  listed: { readonly ms: number; readonly turn: number },
): RangeSubtotal[] {
  const total = pieces.reduce((sum, piece) => sum + piece.entries, 0)
  const last = pieces.at(-1)
  if (last === undefined) return []
  const kept: Piece[] =
    total <= sizes.maxEntries || pieces.length === 1 ? [joined(pieces)] : joinShortTail(pieces, sizes)
  return kept.map((piece) => ({
    ...(piece.through === undefined ? {} : { through: piece.through }),
    entries: piece.entries,
    listedMs: listed.ms,
    listedTurn: listed.turn,
    usage: piece.usage,
  }))
}

function joinShortTail(pieces: readonly Piece[], sizes: RangeSizes): Piece[] {
  const tail = pieces.at(-1) as Piece
  if (tail.entries >= sizes.maxEntries / 4) return [...pieces]
  return [...pieces.slice(0, -2), joined(pieces.slice(-2))]
}

/** Pieces side by side as one. */
function joined(pieces: readonly Piece[]): Piece {
  const last = pieces.at(-1) as Piece
  return {
    through: last.through,
    entries: pieces.reduce((sum, piece) => sum + piece.entries, 0),
    usage: pieces.map((piece) => piece.usage).reduce((sum, usage) => mergeUsage(sum, usage)),
  }
}

/**
 * Neighbours that together hold at most half of `maxEntries` merged (a bucket that shrank). Marks
 * made meanwhile carry onto the merged range (DirtyRanges.install: by overlap).
 */
export function mergedNeighbours(subtotals: readonly RangeSubtotal[], sizes: RangeSizes): RangeSubtotal[] {
  const merged: RangeSubtotal[] = []
  for (const subtotal of subtotals) {
    const previous = merged.at(-1)
    if (previous && previous.entries + subtotal.entries <= sizes.maxEntries / 2)
      merged[merged.length - 1] = {
        ...(subtotal.through === undefined ? {} : { through: subtotal.through }),
        entries: previous.entries + subtotal.entries,
        listedMs: Math.min(previous.listedMs, subtotal.listedMs),
        listedTurn: Math.min(previous.listedTurn, subtotal.listedTurn),
        usage: mergeUsage(previous.usage, subtotal.usage),
      }
    else merged.push(subtotal)
  }
  return merged
}

/** The bucket's record: its ranges' merged. */
export function mergedSubtotals(subtotals: readonly RangeSubtotal[]): BucketUsage | undefined {
  let sum: BucketUsage | undefined
  for (const subtotal of subtotals) sum = sum === undefined ? subtotal.usage : mergeUsage(sum, subtotal.usage)
  return sum
}

/** The ranges' ends (each range's `through` but the last's), as DirtyRanges and the rotation know them. */
export function rangeEnds(subtotals: readonly RangeSubtotal[]): string[] {
  return subtotals.flatMap((subtotal) => (subtotal.through === undefined ? [] : [subtotal.through]))
}

/** What a round asks of a bucket that keeps subtotals. */
export interface RangesRequest {
  /** The ranges the last round left; undefined for a bucket listed in ranges for the first time. */
  readonly previous: BucketRanges | undefined
  /** One a previous subtotal: 1 when it is to be listed again (dirty, its turn, or too old). */
  readonly relist: Uint8Array | undefined
  /**
   * One a previous subtotal: 1 when a change event marked it (or its last listing failed), a part
   * of `relist`. A bucket measured from its inventory lists again only these: a new inventory,
   * not the rotation, refreshes the others.
   */
  readonly dirty?: Uint8Array | undefined
  /** This round's turn (the previous one's plus one). */
  readonly turn: number
  readonly sizes: RangeSizes
}

export interface RangedUsage {
  readonly usage: BucketUsage
  /** Undefined when the bucket was listed whole instead (a store that ignores StartAfter). */
  readonly ranges?: BucketRanges
}
