import type { S3Client } from '@aws-sdk/client-s3'
import type { Logger } from 'pino'
import { keyPrefix, type PrefixSettings } from '../../figures/prefixes/labels.js'
import type { BucketUsage, UsageAccumulator } from '../../record/bucket-usage.js'
import type { VersionEntry, VersionListingFold } from '../../record/version-listing.js'
import type { ListingSlots } from '../listings-in-flight.js'
import type { ListingProgress } from '../types.js'
import type { SendRequest } from './client.js'
import { objectSize } from './errors.js'
import { compareKeys, type KeyRange, type ProbeAnswer, type ProbeRequest, pastRange } from './key-ranges.js'
import {
  checkedPages,
  type IgnoredStarts,
  ObjectsOrder,
  probeIgnoresStart,
  StartIgnoredError,
  VersionsOrder,
  withoutMarkerKey,
} from './listing-order.js'
import { listObjectsV2, listObjectVersions } from './listing-requests.js'
import type { ListedEntry, ListingKind, ListingPage } from './listing-xml.js'
import { type Marker, marker, markerIdentity, pages } from './pages.js'
import { listByRanges, type RangedListing, type SplitSettings } from './ranged-listing.js'
import type { PieceListing } from './subtotal-listing.js'

/**
 * A bucket's listing through the SDK, current objects (ListObjectsV2) or every version
 * (ListObjectVersions), page by page and, once long, in key ranges at once (ranged-listing.ts);
 * the plan's probes are ListObjectsV2 requests in either case. Every page is checked to lie past
 * the position asked before it is folded (listing-order.ts); a store found to ignore StartAfter
 * (or a KeyMarker alone) is remembered in `ignoredStarts` and its listings are not split again.
 */

/** S3's page size limit; fewer, larger pages are cheaper for store and exporter alike. */
const PAGE_SIZE = 1000

export interface BucketListing {
  readonly client: S3Client
  readonly bucket: string
  readonly signal: AbortSignal
  readonly slots: ListingSlots | undefined
  readonly split: SplitSettings
  readonly prefixes: PrefixSettings | undefined
  readonly send: SendRequest
  readonly logger: Logger
  /** What the store was found to ignore, shared by every bucket of the source. */
  readonly ignoredStarts: IgnoredStarts
  /** Told each page's current objects and their bytes, as they are folded. */
  readonly progress?: ListingProgress | undefined
}

export function listCurrent(listing: BucketListing, newFold: () => UsageAccumulator): Promise<BucketUsage> {
  return listByRanges(currentListing(listing, newFold))
}

/** A current objects' listing (ListObjectsV2), for a listing in parts or in subtotals' pieces. */
export function currentListing(
  listing: BucketListing,
  newFold: () => UsageAccumulator,
): RangedListing<ListingPage, UsageAccumulator> & Pick<PieceListing<ListingPage, unknown>, 'entries'> {
  const { client, bucket, prefixes } = listing
  const action = `ListObjectsV2 ${bucket}`
  return {
    ...shared(listing, 'ListObjectsV2'),
    newFold,
    pages: (range, signal) =>
      checkedPages(
        pages({
          action,
          request: (token: string | undefined) =>
            listing.send(action, signal, (abortSignal) =>
              listObjectsV2(
                client,
                {
                  Bucket: bucket,
                  MaxKeys: PAGE_SIZE,
                  ContinuationToken: token,
                  ...(token === undefined && range.after !== undefined ? { StartAfter: range.after } : {}),
                },
                abortSignal,
              ),
            ),
          truncated: (page) => page.truncated,
          next: (page) => page.nextContinuationToken,
        }),
        new ObjectsOrder(action, range.after),
      ),
    foldPage: (fold, page, range, skipThrough) => {
      let [objects, bytes] = [0, 0]
      let key: string | undefined
      for (const object of page.contents) {
        key = object.key ?? ''
        if (pastRange(key, range)) {
          listing.progress?.listed(objects, bytes)
          return false
        }
        if (skipThrough !== undefined && compareKeys(key, skipThrough) <= 0) continue
        const size = objectSize(object.size, action)
        fold.add({
          size,
          modifiedMs: object.modifiedMs ?? Number.NaN,
          storageClass: object.storageClass,
          prefix: prefixes && keyPrefix(key, prefixes),
        })
        objects++
        bytes += size
      }
      listing.progress?.listed(objects, bytes)
      // A range that ends at the page's last key is done: no page past it is asked for.
      return range.through === undefined || key !== range.through
    },
    continuesAfter: (page) => (page.truncated ? page.contents.at(-1)?.key : undefined),
    finish: (fold) => fold.finish(),
    entries: (page, range, skipThrough) =>
      count(page.contents, (object) => inPiece(object.key ?? '', range, skipThrough)),
  }
}

/**
 * The version the next page starts after: NextVersionIdMarker, which names the page's last entry.
 * OpenStack Swift 2.30 (s3api) names the key's `null` version there whatever it listed; asked for
 * the entries after that, it answers an empty last page, and every entry past the first 1,000 of
 * a versioned bucket would be lost. The id of the last entry listed is taken when the store names
 * the `null` version of that key and did not list it last.
 */
export function nextVersionIdMarker(page: ListingPage): string | undefined {
  const named = page.nextVersionIdMarker
  const last = page.lastVersionEntry
  if (named !== 'null' || last?.versionId === undefined || last.key !== page.nextKeyMarker) return named
  return last.versionId
}

/** Key ranges end between keys, never inside one key's history. */
export function listVersions(
  listing: BucketListing,
  newFold: () => VersionListingFold,
): Promise<BucketUsage> {
  return listByRanges(versionsListing(listing, newFold))
}

/** A versions' listing (ListObjectVersions), for a listing in parts or in subtotals' pieces. */
export function versionsListing(
  listing: BucketListing,
  newFold: () => VersionListingFold,
): RangedListing<ListingPage, VersionListingFold> & Pick<PieceListing<ListingPage, unknown>, 'entries'> {
  const { client, bucket } = listing
  const action = `ListObjectVersions ${bucket}`
  return {
    ...shared(listing, 'ListObjectVersions'),
    newFold,
    pages: (range, signal) =>
      checkedPages(
        withoutMarkerKey(
          pages<ListingPage, Marker>({
            action,
            request: (position) =>
              listing.send(action, signal, (abortSignal) =>
                listObjectVersions(
                  client,
                  {
                    Bucket: bucket,
                    MaxKeys: PAGE_SIZE,
                    KeyMarker: position ? position.key : range.after,
                    VersionIdMarker: position?.id,
                  },
                  abortSignal,
                ),
              ),
            truncated: (page) => page.truncated,
            next: (page) => marker(page.nextKeyMarker, nextVersionIdMarker(page)),
            identify: markerIdentity,
          }),
          range.after,
        ),
        new VersionsOrder(action, range.after),
      ),
    foldPage: (fold, page, range, skipThrough) => {
      const within = (entry: ListedEntry) => inPiece(entry.key ?? '', range, skipThrough)
      const { versions, deleteMarkers } = page
      const keptVersions = versions.filter(within)
      const keptMarkers = deleteMarkers.filter(within)
      const past = (entry: ListedEntry) => pastRange(entry.key ?? '', range)
      // Without a skip, only entries past the range are left out.
      const ended =
        skipThrough === undefined
          ? keptVersions.length < versions.length || keptMarkers.length < deleteMarkers.length
          : versions.some(past) || deleteMarkers.some(past)
      const entries = keptVersions.map((version) => versionEntry(version, objectSize(version.size, action)))
      if (listing.progress) reportCurrent(listing.progress, entries)
      fold.addPage(
        entries,
        keptMarkers.map((deleteMarker) => versionEntry(deleteMarker, undefined)),
        page.truncated && !ended ? page.nextKeyMarker : undefined,
      )
      return !ended
    },
    continuesAfter: (page) => (page.truncated ? page.nextKeyMarker : undefined),
    finish: (fold) => fold.finish(),
    entries: (page, range, skipThrough) => {
      const within = (entry: ListedEntry) => inPiece(entry.key ?? '', range, skipThrough)
      return count(page.versions, within) + count(page.deleteMarkers, within)
    },
  }
}

/** Whether `key` is within `range` and past `skipThrough` (a piece's entries; see PieceListing.entries). */
function inPiece(key: string, range: KeyRange, skipThrough: string | undefined): boolean {
  return !pastRange(key, range) && (skipThrough === undefined || compareKeys(key, skipThrough) > 0)
}

function count<T>(items: readonly T[], test: (item: T) => boolean): number {
  let found = 0
  for (const item of items) if (test(item)) found++
  return found
}

/** What either listing needs whatever it lists: the budget, the split and the plan's probes. */
function shared(listing: BucketListing, kind: ListingKind) {
  const { client, bucket, ignoredStarts } = listing
  const probeAction = `ListObjectsV2 ${bucket} (plan)`
  return {
    signal: listing.signal,
    slots: listing.slots,
    split: ignoredStarts.allowSplit(kind) ? listing.split : { ...listing.split, maxRanges: 1 },
    probe: async (request: ProbeRequest, signal: AbortSignal): Promise<ProbeAnswer> => {
      const page = await listing.send(probeAction, signal, (abortSignal) =>
        listObjectsV2(
          client,
          {
            Bucket: bucket,
            Prefix: request.prefix || undefined,
            StartAfter: request.startAfter || undefined,
            Delimiter: request.delimiter,
            MaxKeys: request.maxKeys,
          },
          abortSignal,
        ),
      )
      const answer = {
        keys: page.contents.flatMap((object) => (object.key === undefined ? [] : [object.key])),
        prefixes: page.commonPrefixes,
        truncated: page.truncated === true,
      }
      if (probeIgnoresStart(request, answer)) throw new StartIgnoredError(probeAction, 'StartAfter')
      return answer
    },
    onSplit: (split: { ranges: number; probes: number }) =>
      listing.logger.debug({ bucket, ...split }, 'bucket listed in key ranges'),
    onPlanFailed: (error: unknown) =>
      listing.logger.debug(
        { bucket, error: error instanceof Error ? error.message : String(error) },
        'bucket not split: its key ranges could not be planned',
      ),
    onStartIgnored: (error: StartIgnoredError) => {
      if (!ignoredStarts.add(error.field)) return
      listing.logger.warn(
        { bucket, field: error.field, error: error.message },
        `store ignores ${error.field}: buckets are listed page after page, never in key ranges, until restart`,
      )
    },
  }
}

/**
 * A versions page's current objects (the latest versions) told to the round's progress: what the
 * fold will count as current (a key whose latest version straddles pages is told on its page).
 */
function reportCurrent(progress: ListingProgress, entries: readonly VersionEntry[]): void {
  let [objects, bytes] = [0, 0]
  for (const entry of entries) {
    if (!entry.isLatest) continue
    objects++
    bytes += entry.size ?? 0
  }
  progress.listed(objects, bytes)
}

/** A listed version (with its size) or delete marker (without) as the fold takes it. */
function versionEntry(entry: ListedEntry, size: number | undefined): VersionEntry {
  return {
    key: entry.key ?? '',
    versionId: entry.versionId,
    isLatest: entry.isLatest === true,
    modifiedMs: entry.modifiedMs ?? Number.NaN,
    size,
    storageClass: entry.storageClass,
  }
}
