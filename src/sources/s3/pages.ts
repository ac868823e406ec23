import { createHash } from 'node:crypto'
import { SourceError } from '../types.js'
import { notAListing, stalled } from './errors.js'

/**
 * The one loop over a paged S3 listing (ListBuckets, ListObjectsV2, ListObjectVersions,
 * ListMultipartUploads), with its guards in one place: an answer that holds no listing, a store
 * that says the listing continues but gives no new position or one it gave before (a token cycle,
 * A -> B -> A, would be listed until SCAN_TIMEOUT_SECONDS: ~170 billed requests a second), and a
 * bound on the pages. Positions seen are kept as 12-byte digests: under 100 bytes a page, a few
 * MB for a listing of 100,000 pages.
 */

/** At most this many pages per listing: a billion keys at 1,000 a page; past it a store is looping. */
const MAX_PAGES = 1_000_000

export interface PagedListing<Page, Position> {
  /** Names the listing in errors: `ListObjectsV2 bucket`. */
  readonly action: string
  /** Fetches the page starting at `position` (undefined: the first). */
  request(position: Position | undefined): Promise<Page>
  /** Whether more pages follow; undefined when the answer holds no listing. */
  truncated(page: Page): boolean | undefined
  /** Where the next page starts, as the page says; undefined when it says nothing. */
  next(page: Page): Position | undefined
  /** What tells two positions apart, as a string; String(position) when not given. */
  identify?(position: Position): string
  /** The bound on pages; MAX_PAGES when not given. */
  readonly maxPages?: number
}

/**
 * Yields each page of `listing` in order. Each page is yielded before its continuation is judged,
 * so the caller folds it first, as a loop over the pages would; a stall then ends the listing.
 */
export async function* pages<Page, Position>(listing: PagedListing<Page, Position>): AsyncGenerator<Page> {
  const identify = listing.identify ?? String
  const maxPages = listing.maxPages ?? MAX_PAGES
  const seen = new Set<string>()
  let position: Position | undefined
  let positionDigest: string | undefined
  for (let count = 1; ; count++) {
    const page = await listing.request(position)
    const truncated = listing.truncated(page)
    if (truncated === undefined) throw notAListing(listing.action)
    yield page
    if (!truncated) return
    const next = listing.next(page)
    if (next === undefined) throw stalled(listing.action)
    const digest = digestOf(identify(next))
    if (digest === positionDigest) throw stalled(listing.action)
    if (seen.has(digest)) {
      throw new SourceError(
        `${listing.action}: page ${count} gives a continuation token it gave before: the listing loops; given up after ${count} pages`,
        'failed',
      )
    }
    seen.add(digest)
    if (count >= maxPages) {
      throw new SourceError(
        `${listing.action}: more than ${maxPages} pages; the listing is given up`,
        'failed',
      )
    }
    position = next
    positionDigest = digest
  }
}

/** A position in a listing paged by key and version (or upload) id. */
export interface Marker {
  readonly key: string
  readonly id: string | undefined
}

export const markerIdentity = (position: Marker) => `${position.key}\u0000${position.id ?? ''}`

/** 96 bits of SHA-256: two positions of a listing of MAX_PAGES pages share one by chance once in 10^17. */
function digestOf(identity: string): string {
  return createHash('sha256').update(identity).digest().toString('latin1', 0, 12)
}

/** The page's next key and version (or upload) marker; undefined when it gives no key. */
export function marker(key: string | undefined, id: string | undefined): Marker | undefined {
  return key === undefined ? undefined : { key, id }
}
