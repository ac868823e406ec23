import type { UsageAccumulator } from '../../record/bucket-usage.js'
import type { VersionListingFold } from '../../record/version-listing.js'
import {
  type BucketRanges,
  mergedNeighbours,
  type Piece,
  type RangeSubtotal,
  type RangesRequest,
  relistedRanges,
} from '../subtotals.js'
import { type BucketListing, currentListing, versionsListing } from './bucket-listing.js'
import type { KeyRange } from './key-ranges.js'
import { StartIgnoredError } from './listing-order.js'
import { firstRanges, listRangesInPieces, type PieceListing } from './subtotal-listing.js'

/**
 * A bucket's subtotals after a round (issue 25): the ranges `request` names listed again (all of
 * them for a bucket without ranges yet, planned by probes), in pieces that let a grown range split,
 * the others' subtotals kept; then neighbours that shrank merged. Undefined when the store ignores
 * where a range starts: the bucket is then listed whole (the caller's), as the parallel listing does.
 * `keepEnds`: no neighbours merged (a bucket measured from its inventory: each range keeps the
 * time it was listed, which says whether a newer inventory may replace it).
 */
export async function listedSubtotals(
  base: BucketListing,
  folds: { readonly versions?: () => VersionListingFold; readonly objects: () => UsageAccumulator },
  request: RangesRequest,
  listedMs: number,
  keepEnds = false,
): Promise<BucketRanges | undefined> {
  const kind = folds.versions ? 'versions' : 'objects'
  if (!base.ignoredStarts.allowSplit(kind === 'versions' ? 'ListObjectVersions' : 'ListObjectsV2'))
    return undefined
  const pieceEntries = Math.max(1, Math.floor(request.sizes.maxEntries / 2))
  const listing: PieceListing<unknown, unknown> = folds.versions
    ? { ...versionsListing(base, folds.versions), pieceEntries }
    : { ...currentListing(base, folds.objects), pieceEntries }
  const previous = request.previous?.listing === kind ? request.previous : undefined
  const ranges = previous ? rangesOf(previous.subtotals) : await firstRanges(listing)
  const listed = ranges.flatMap((range, index) =>
    !previous || request.relist?.[index] === 1 ? [{ range, index }] : [],
  )
  let pieces: Piece[][]
  try {
    pieces = await listRangesInPieces(
      listing,
      listed.map(({ range }) => range),
    )
  } catch (error) {
    if (!(error instanceof StartIgnoredError) || base.signal.aborted) throw error
    listing.onStartIgnored?.(error)
    return undefined
  }
  const turn = { ms: listedMs, turn: request.turn }
  const byIndex = new Map(listed.map(({ index }, order) => [index, pieces[order] as Piece[]]))
  const subtotals: RangeSubtotal[] = []
  ranges.forEach((_range, index) => {
    const relisted = byIndex.get(index)
    if (relisted) subtotals.push(...relistedRanges(relisted, request.sizes, turn))
    else subtotals.push(previous?.subtotals[index] as RangeSubtotal)
  })
  return {
    listing: kind,
    turn: request.turn,
    subtotals: keepEnds ? subtotals : mergedNeighbours(subtotals, request.sizes),
    relistedRanges: listed.length,
    relistedEntries: pieces.flat().reduce((sum, piece) => sum + piece.entries, 0),
    dirtyRanges: 0,
  }
}

/** The key ranges subtotals cover. */
function rangesOf(subtotals: readonly RangeSubtotal[]): KeyRange[] {
  return subtotals.map((subtotal, index) => ({
    after: subtotals[index - 1]?.through,
    through: subtotal.through,
  }))
}
