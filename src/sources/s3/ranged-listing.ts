import { setMaxListeners } from 'node:events'
import type { BucketUsage } from '../../record/bucket-usage.js'
import { mergeUsage } from '../../record/usage-sums.js'
import { linkedAbort } from '../linked-abort.js'
import type { ListingSlots } from '../listings-in-flight.js'
import {
  compareKeys,
  type KeyRange,
  type ProbeAnswer,
  type ProbeRequest,
  planBoundaries,
  rangesFrom,
} from './key-ranges.js'
import { StartIgnoredError } from './listing-order.js'

/**
 * One bucket's listing, in parts when it is long and the scan has listings to spare (issue 15).
 * The listing starts as one, page after page, as it always did; once it has run `afterPages`
 * pages and is still going, and the round's budget (SCAN_CONCURRENCY, shared with every bucket)
 * has a slot spare, the keys after the last page are planned into parts (key-ranges.ts) and the
 * parts are listed at once, each into a fold of its own, on as many slots as are spare (the one
 * the bucket holds included), while the first listing goes on up to the first boundary. The
 * folds are merged (mergeUsage): every figure of a part is a sum, a minimum or a maximum over its
 * keys, and no key (nor any version of one) is in two parts, so the merge is the one fold a
 * single listing makes. Any part failing fails the bucket, as one listing failing does, but for a
 * store found to ignore where a part starts (StartIgnoredError, from a probe or a part's first
 * page): then the bucket is listed again as one, from the start, page after page (issue 23).
 */

export interface SplitSettings {
  /** Parts at most (S3_LIST_RANGES); below 2, never split. */
  readonly maxRanges: number
  /** Probe requests at most per bucket. */
  readonly maxProbes: number
  /** Pages listed before splitting is considered: a bucket this short costs no probe. */
  readonly afterPages: number
}

export interface RangedListing<Page, Fold> {
  readonly signal: AbortSignal
  readonly slots: ListingSlots | undefined
  readonly split: SplitSettings
  newFold(): Fold
  /** The pages of a listing of the keys after `range.after` (from the start when undefined). */
  pages(range: KeyRange, signal: AbortSignal): AsyncGenerator<Page>
  /**
   * Folds the page's entries within `range`, but those up to `skipThrough` (a piece's start, its
   * first page holding the last versions of the key before it); false when an entry lay past the
   * range (the part is done).
   */
  foldPage(fold: Fold, page: Page, range: KeyRange, skipThrough?: string): boolean
  /** The last key of a page that says more follow; undefined when it is the last page. */
  continuesAfter(page: Page): string | undefined
  finish(fold: Fold): BucketUsage
  /** One ListObjectsV2 request for the plan. */
  probe(request: ProbeRequest, signal: AbortSignal): Promise<ProbeAnswer>
  /** Told how the bucket was split (for a debug line). */
  onSplit?(split: { ranges: number; probes: number }): void
  /**
   * Told why a plan failed: the listing then goes on as one (a probe may be refused where the
   * listing is not: ListObjectsV2 needs s3:ListBucket, a versions listing s3:ListBucketVersions).
   */
  onPlanFailed?(error: unknown): void
  /** Told the store ignores where a part starts: the bucket is listed as one. */
  onStartIgnored?(error: StartIgnoredError): void
}

interface Part<Fold> {
  readonly range: KeyRange
  readonly fold: Fold
}

export async function listByRanges<Page, Fold>(listing: RangedListing<Page, Fold>): Promise<BucketUsage> {
  try {
    return await listInParts(listing)
  } catch (error) {
    if (!(error instanceof StartIgnoredError) || listing.signal.aborted) throw error
    listing.onStartIgnored?.(error)
    return listWhole(listing)
  }
}

/**
 * The bucket as one listing, page after page, never split. What the parts' pages told the round's
 * progress is told again as this listing goes; the bucket's count is set right when it ends.
 */
async function listWhole<Page, Fold>(listing: RangedListing<Page, Fold>): Promise<BucketUsage> {
  const range: KeyRange = { after: undefined, through: undefined }
  const fold = listing.newFold()
  for await (const page of listing.pages(range, listing.signal)) listing.foldPage(fold, page, range)
  return listing.finish(fold)
}

async function listInParts<Page, Fold>(listing: RangedListing<Page, Fold>): Promise<BucketUsage> {
  const abort = linkedAbort(listing.signal)
  // Every part's request listens to it: as many as the budget has slots.
  setMaxListeners(2 * (listing.slots?.size ?? 1) + 10, abort.signal)
  const parts: Part<Fold>[] = []
  const pending: KeyRange[] = []
  const workers: Promise<void>[] = []
  let failure: { error: unknown } | undefined
  const fail = (error: unknown) => {
    failure ??= { error }
    abort.controller.abort(error)
  }

  const listPart = async (range: KeyRange, fold: Fold) => {
    for await (const page of listing.pages(range, abort.signal))
      if (!listing.foldPage(fold, page, range)) break
  }
  const work = async (release?: () => void) => {
    try {
      for (let range = pending.shift(); range && !failure; range = pending.shift()) {
        const fold = listing.newFold()
        parts.push({ range, fold })
        await listPart(range, fold)
        spawn()
      }
    } catch (error) {
      fail(error)
    } finally {
      release?.()
    }
  }
  // Extra parts run on slots spare now; a slot given back later (a bucket done) is taken at the
  // next part's start.
  const spawn = () => {
    while (pending.length > 0 && !failure) {
      const release = listing.slots?.tryAcquire()
      if (!release) return
      workers.push(work(release))
    }
  }

  try {
    let range: KeyRange = { after: undefined, through: undefined }
    const first = listing.newFold()
    parts.push({ range, fold: first })
    let pagesListed = 0
    let planning: Promise<void> | undefined
    /** The last key the first listing folded; undefined once it is done. */
    let listedThrough: string | undefined
    for await (const page of listing.pages(range, abort.signal)) {
      pagesListed++
      if (!listing.foldPage(first, page, range)) break
      listedThrough = listing.continuesAfter(page)
      if (planning || listedThrough === undefined || listing.split.maxRanges < 2) continue
      if (pagesListed < listing.split.afterPages || (listing.slots?.spare ?? 0) === 0) continue
      // Planned while the first listing goes on: the probes cost it no time.
      planning = planBoundaries({
        after: listedThrough,
        maxRanges: listing.split.maxRanges,
        maxProbes: listing.split.maxProbes,
        probe: (request) => listing.probe(request, abort.signal),
      }).then(
        (plan) => {
          // Boundaries the first listing has passed meanwhile are dropped: it goes on to the next.
          const reached = listedThrough
          if (reached === undefined || failure) return
          const [end, ...rest] = plan.boundaries.filter((boundary) => compareKeys(boundary, reached) >= 0)
          if (end === undefined) return
          range = { after: undefined, through: end }
          ;(parts[0] as { range: KeyRange }).range = range
          // The coarsest parts first (the shorter a boundary, the more keys it likely starts).
          pending.push(
            ...rangesFrom(end, rest).sort((a, b) => (a.after?.length ?? 0) - (b.after?.length ?? 0)),
          )
          listing.onSplit?.({ ranges: rest.length + 2, probes: plan.probes })
          spawn()
        },
        (error: unknown) =>
          error instanceof StartIgnoredError
            ? listing.onStartIgnored?.(error)
            : listing.onPlanFailed?.(error),
      )
    }
    listedThrough = undefined
    await planning
    await work()
  } catch (error) {
    fail(error)
  } finally {
    for (let round = 0; workers.length > 0 && round < 1_000_000; round++) await Promise.all(workers.splice(0))
    abort.dispose()
  }
  if (failure) throw failure.error
  const ordered = parts.sort((a, b) => compareAfter(a.range, b.range))
  return ordered.map((part) => listing.finish(part.fold)).reduce((sum, usage) => mergeUsage(sum, usage))
}

function compareAfter(a: KeyRange, b: KeyRange): number {
  if (a.after === undefined || b.after === undefined)
    return a.after === b.after ? 0 : a.after === undefined ? -1 : 1
  return compareKeys(a.after, b.after)
}
