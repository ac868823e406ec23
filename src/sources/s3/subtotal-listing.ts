import { setMaxListeners } from 'node:events'
import { linkedAbort } from '../linked-abort.js'
import type { Piece } from '../subtotals.js'
import { type KeyRange, planBoundaries, rangesFrom } from './key-ranges.js'
import type { RangedListing } from './ranged-listing.js'

/**
 * The key ranges of a bucket that keeps subtotals (issue 25) listed again, each into a fold of its
 * own, at once on as many listing slots as are spare (the one the bucket holds included), as the
 * parts of one listing are (ranged-listing.ts). A range's listing is cut into pieces of
 * `pieceEntries` entries, between two keys (a key's versions are never split: a cut waits for the
 * page past the key it ends at), so a range that grew can be split without listing it twice.
 */

export interface PieceListing<Page, Fold> extends RangedListing<Page, Fold> {
  /**
   * Entries of the page within `range` and past `skipThrough` (objects, or versions and delete
   * markers): a range's last page runs past its end, and those entries are the next range's.
   */
  entries(page: Page, range: KeyRange, skipThrough?: string): number
  /** A piece is cut once it holds this many entries. */
  readonly pieceEntries: number
}

/** The pieces of each of `ranges`, in their order. Any range failing fails them all. */
export async function listRangesInPieces<Page, Fold>(
  listing: PieceListing<Page, Fold>,
  ranges: readonly KeyRange[],
): Promise<Piece[][]> {
  const abort = linkedAbort(listing.signal)
  setMaxListeners(2 * (listing.slots?.size ?? 1) + 10, abort.signal)
  const results = new Array<Piece[]>(ranges.length)
  let next = 0
  let failure: { error: unknown } | undefined
  const workers: Promise<void>[] = []
  const work = async (release?: () => void) => {
    try {
      while (next < ranges.length && !failure) {
        const index = next++
        spawn()
        results[index] = await listPieces(listing, ranges[index] as KeyRange, abort.signal)
      }
    } catch (error) {
      failure ??= { error }
      abort.controller.abort(error)
    } finally {
      release?.()
    }
  }
  const spawn = () => {
    while (next < ranges.length && !failure && workers.length < ranges.length) {
      const release = listing.slots?.tryAcquire()
      if (!release) return
      workers.push(work(release))
    }
  }
  try {
    await work()
    for (let round = 0; workers.length > 0 && round < 1_000_000; round++) await Promise.all(workers.splice(0))
  } finally {
    abort.dispose()
  }
  if (failure) throw failure.error
  return results
}

/** One range's listing, cut into pieces; the last piece ends where the range does. */
async function listPieces<Page, Fold>(
  listing: PieceListing<Page, Fold>,
  range: KeyRange,
  signal: AbortSignal,
): Promise<Piece[]> {
  const pieces: Piece[] = []
  let fold = listing.newFold()
  let entries = 0
  let piece: KeyRange = range
  /** The key the piece being filled ends at, once it is full: entries up to it are still its own. */
  let cut: string | undefined
  /** Entries up to this key belong to the piece before (the page past a cut). */
  let skip: string | undefined
  for await (const page of listing.pages(range, signal)) {
    if (cut !== undefined) {
      // The rest of the cut key's entries (versions on the next page) go to the full piece.
      const rest = { after: piece.after, through: cut }
      entries += listing.entries(page, rest)
      if (listing.foldPage(fold, page, rest)) continue
      pieces.push({ through: cut, entries, usage: listing.finish(fold) })
      fold = listing.newFold()
      entries = 0
      piece = { after: cut, through: range.through }
      skip = cut
      cut = undefined
    }
    const more = listing.foldPage(fold, page, piece, skip)
    entries += listing.entries(page, piece, skip)
    skip = undefined
    if (!more) break
    const last = listing.continuesAfter(page)
    if (last !== undefined && entries >= listing.pieceEntries) cut = last
  }
  pieces.push({ through: range.through, entries, usage: listing.finish(fold) })
  return pieces
}

/** The first ranges of a bucket that has none yet: planned by probes (key-ranges.ts), or the bucket whole. */
export async function firstRanges<Page, Fold>(listing: PieceListing<Page, Fold>): Promise<KeyRange[]> {
  if (listing.split.maxRanges < 2) return [{ after: undefined, through: undefined }]
  try {
    const plan = await planBoundaries({
      after: '',
      maxRanges: listing.split.maxRanges,
      maxProbes: listing.split.maxProbes,
      probe: (request) => listing.probe(request, listing.signal),
    })
    return rangesFrom(undefined, plan.boundaries)
  } catch (error) {
    if (listing.signal.aborted) throw error
    listing.onPlanFailed?.(error)
    return [{ after: undefined, through: undefined }]
  }
}
