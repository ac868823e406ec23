import { SourceError } from '../types.js'
import { notAListing, stalled } from './errors.js'

/**
 * The one loop over a paged S3 listing (ListBuckets, ListObjectsV2, ListObjectVersions,
 * ListMultipartUploads), with its guards in one place: an answer that holds no listing, a store
 * that says the listing continues but gives no new position, and a bound on the pages.
 */

/** At most this many pages per listing: a billion keys at 1,000 a page; past it a store is looping. */
export const MAX_PAGES = 1_000_000

export interface PagedListing<Page, Position> {
  /** Names the listing in errors: `ListObjectsV2 bucket`. */
  readonly action: string
  /** Fetches the page starting at `position` (undefined: the first). */
  request(position: Position | undefined): Promise<Page>
  /** Whether more pages follow; undefined when the answer holds no listing. */
  truncated(page: Page): boolean | undefined
  /** Where the next page starts, as the page says; undefined when it says nothing. */
  next(page: Page): Position | undefined
  /** Whether two positions are the same (a store repeating itself); `===` when not given. */
  same?(a: Position, b: Position): boolean
  /** The bound on pages; MAX_PAGES when not given. */
  readonly maxPages?: number
}

/**
 * Yields each page of `listing` in order. Each page is yielded before its continuation is judged,
 * so the caller folds it first, as a loop over the pages would; a stall then ends the listing.
 */
export async function* pages<Page, Position>(listing: PagedListing<Page, Position>): AsyncGenerator<Page> {
  const same = listing.same ?? ((a: Position, b: Position) => a === b)
  const maxPages = listing.maxPages ?? MAX_PAGES
  let position: Position | undefined
  for (let count = 1; ; count++) {
    const page = await listing.request(position)
    const truncated = listing.truncated(page)
    if (truncated === undefined) throw notAListing(listing.action)
    yield page
    if (!truncated) return
    const next = listing.next(page)
    if (next === undefined || (position !== undefined && same(next, position))) throw stalled(listing.action)
    if (count >= maxPages) {
      throw new SourceError(
        `${listing.action}: more than ${maxPages} pages; the listing is given up`,
        'failed',
      )
    }
    position = next
  }
}

/** A position in a listing paged by key and version (or upload) id. */
export interface Marker {
  readonly key: string
  readonly id: string | undefined
}

export const sameMarker = (a: Marker, b: Marker) => a.key === b.key && a.id === b.id

/** The page's next key and version (or upload) marker; undefined when it gives no key. */
export function marker(key: string | undefined, id: string | undefined): Marker | undefined {
  return key === undefined ? undefined : { key, id }
}
