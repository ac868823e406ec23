/**
 * A bucket that keeps per-range subtotals (issue 25), measured by the s3 source: from its S3
 * Inventory when it has one (issue 27), its ranges' figures folded from the inventory's rows and
 * the ranges change events marked since listed again; otherwise its ranges listed as the round
 * asks; or whole when the store cannot list from a key (the caller's whole measure).
 *
 * How an inventory and events combine: a new inventory replaces the subtotal of every range last
 * listed before its creation time (its rows are newer) and keeps the others (listed after it,
 * they hold changes it lacks); a range a change event marked is listed again by LIST in the same
 * round, replacing only that range; marks made while the round runs stay for the next. Ranges of
 * an inventory are not re-listed by the rotation (SCAN_FULL_EVERY): the next inventory refreshes
 * them. Neighbours are never merged, so each range keeps the time it was listed.
 */

import type { PrefixSettings } from '../../figures/prefixes/labels.js'
import { type BucketUsage, type UsageAccumulator, withTopPrefixes } from '../../record/bucket-usage.js'
import type { VersionListingFold } from '../../record/version-listing.js'
import {
  type BucketRanges,
  mergedSubtotals,
  type RangedUsage,
  type RangeSubtotal,
  type RangesRequest,
  rangeEnds,
} from '../subtotals.js'
import type { BucketListing } from './bucket-listing.js'
import type { InventoryPart, RangedInventory } from './inventory/reader.js'
import { listedSubtotals } from './subtotal-ranges.js'

/** What the source lends a ranged measure of one bucket. */
export interface RangedMeasureParts {
  readonly listing: BucketListing
  readonly startedMs: number
  readonly prefixes: PrefixSettings | undefined
  /** Whether versions are listed (SCAN_VERSIONS, and the store implements ListObjectVersions). */
  versions(): boolean
  readonly objects: () => UsageAccumulator
  readonly versionFold: () => VersionListingFold
  /** The ranges listed with versions; undefined when the store turns out not to implement it. */
  listVersions(list: () => Promise<BucketRanges | undefined>): Promise<BucketRanges | undefined>
  /** The inventory per range (InventoryReader.measureRanged); undefined when inventories are off. */
  inventory(throughs: readonly string[] | undefined, kept: boolean): Promise<RangedInventory | undefined>
  /** Figures measured whole every round (uploads, settings) added to the listed ones. */
  completed(listed: BucketUsage): Promise<BucketUsage>
  /** The bucket's settings added to an inventory's figures (no LIST request to the bucket). */
  withSettings(usage: BucketUsage): Promise<BucketUsage>
  /** The bucket measured whole (its inventory, or a listing). */
  whole(): Promise<BucketUsage>
}

export async function measureRanges(parts: RangedMeasureParts, request: RangesRequest): Promise<RangedUsage> {
  const fromInventory = await inventoryRanges(parts, request)
  if (fromInventory) return fromInventory
  const ranges = await listRanges(parts, request, false)
  const listed = ranges && mergedSubtotals(ranges.subtotals)
  if (!ranges || !listed) return { usage: await parts.whole() }
  return { usage: await parts.completed(listed), ranges }
}

/** The ranges `request` names listed again (all of them for a bucket without ranges yet). */
async function listRanges(
  parts: RangedMeasureParts,
  request: RangesRequest,
  keepEnds: boolean,
): Promise<BucketRanges | undefined> {
  const list = (folds: Parameters<typeof listedSubtotals>[1]) =>
    listedSubtotals(parts.listing, folds, request, parts.startedMs, keepEnds)
  if (parts.versions()) {
    const ranges = await parts.listVersions(() =>
      list({ versions: parts.versionFold, objects: parts.objects }),
    )
    // Asked again: a store answering ListObjectVersions as not implemented turns versions off.
    if (parts.versions()) return ranges
  }
  return list({ objects: parts.objects })
}

/** The bucket's ranges from its inventory and the ranges marked since; undefined when it has none. */
async function inventoryRanges(
  parts: RangedMeasureParts,
  request: RangesRequest,
): Promise<RangedUsage | undefined> {
  const kind = parts.versions() ? 'versions' : 'objects'
  const previous = request.previous?.listing === kind ? request.previous : undefined
  const read = await parts.inventory(previous && rangeEnds(previous.subtotals), previous !== undefined)
  if (read === undefined) return undefined
  if ('whole' in read) return { usage: await parts.whole() }
  let base: BucketRanges
  let inventory: InventoryPart
  if ('same' in read) {
    base = previous as BucketRanges
    inventory = read.same
  } else {
    inventory = read.inventory
    base = {
      listing: kind,
      turn: request.turn,
      subtotals: newerOf(read, previous, request.turn),
      relistedRanges: 0,
      relistedEntries: 0,
      dirtyRanges: 0,
    }
  }
  // Marks index the previous ranges, whose ends the inventory's ranges keep (none: no marks yet).
  const dirty = previous && request.dirty?.length === base.subtotals.length ? request.dirty : undefined
  const relist = dirty ?? new Uint8Array(base.subtotals.length)
  const ranges = await listRanges(parts, { ...request, previous: base, relist }, true)
  const merged = mergedSubtotals((ranges ?? base).subtotals)
  if (!merged) return { usage: await parts.whole() }
  const usage = parts.prefixes ? withTopPrefixes(merged, parts.prefixes.topK) : merged
  const figures = await parts.withSettings({ ...usage, inventory })
  return ranges ? { usage: figures, ranges } : { usage: figures }
}

/**
 * The subtotals of a new inventory's ranges: its rows' where the range was last listed before the
 * inventory was made (or never), the range's last subtotal where it was listed after.
 */
function newerOf(
  read: Extract<RangedInventory, { pieces: unknown }>,
  previous: BucketRanges | undefined,
  turn: number,
): RangeSubtotal[] {
  const createdMs = read.inventory.createdSeconds * 1000
  return read.pieces.map((piece, index) => {
    const last = previous?.subtotals[index]
    if (last && last.listedMs > createdMs) return last
    return {
      ...(piece.through === undefined ? {} : { through: piece.through }),
      entries: piece.entries,
      listedMs: createdMs,
      listedTurn: turn,
      usage: piece.fold.finish(),
    }
  })
}
