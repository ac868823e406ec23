import { SourceError } from '../types.js'
import { compareKeys, type ProbeAnswer, type ProbeRequest } from './key-ranges.js'
import type { ListedEntry, ListingKind, ListingPage } from './listing-xml.js'

/**
 * S3 lists keys in order, each page after the position the request gave: its StartAfter (a
 * ListObjectVersions KeyMarker) for a listing's first page, the previous page for the next ones.
 * A store that ignores the position, or repeats itself, would have keys counted twice as a
 * successful scan (issue 23: 20,000 objects counted 344,500 times when StartAfter is ignored), so
 * every page is checked before it is folded:
 * - a first page with a key at or before its StartAfter: the store ignores StartAfter
 *   (StartIgnoredError), and the bucket is listed again in one sequence of pages (ranged-listing.ts);
 * - any later page with a key at or before the last key already listed (for versions: a key before
 *   it, or the same key's latest version or a version of it listed already): the store does not
 *   advance, and the bucket fails (NotAdvancingError).
 * Keys are compared as S3 orders them (compareKeys). Memory: the position, and for versions the
 * version ids of the last key of the previous page (at most one page of them).
 */

export class StartIgnoredError extends SourceError {
  /** Which request field the store ignored. */
  readonly field: 'StartAfter' | 'KeyMarker'

  constructor(action: string, field: 'StartAfter' | 'KeyMarker') {
    super(
      `${action}: the store ignores ${field}: it listed keys at or before the one asked to start after`,
      'failed',
    )
    this.field = field
  }
}

/**
 * What a store was found to ignore, kept for the source's life (a store does not change its
 * ways between scans; a restart probes it again): its listings are no longer split into key
 * ranges, so they cost no probe nor a listing thrown away.
 */
export class IgnoredStarts {
  readonly #fields = new Set<StartIgnoredError['field']>()

  /** Notes it; true the first time, to say so once. */
  add(field: StartIgnoredError['field']): boolean {
    if (this.#fields.has(field)) return false
    this.#fields.add(field)
    return true
  }

  /**
   * Whether listings of `kind` may be split: both need StartAfter (the plan's probes are
   * ListObjectsV2), versions a KeyMarker alone as well.
   */
  allowSplit(kind: ListingKind): boolean {
    return !this.#fields.has('StartAfter') && (kind === 'ListObjectsV2' || !this.#fields.has('KeyMarker'))
  }
}

/** The pages of `pages`, each checked by `order` before it is handed on. */
export async function* checkedPages(
  pages: AsyncGenerator<ListingPage>,
  order: { check(page: ListingPage): void },
): AsyncGenerator<ListingPage> {
  for await (const page of pages) {
    order.check(page)
    yield page
  }
}

/**
 * The pages of a ListObjectVersions listing that starts after the key `keyMarker`, without that
 * key's own entries at its head. S3 starts after the key; Ceph RGW (16 here, and later releases:
 * ceph tracker 68055, "key-marker is inclusive") lists the key's versions and delete markers
 * first. They belong to the range before, which counted them: folded again they would count
 * twice, and checked they would read as a KeyMarker ignored, the bucket then never split again.
 * Only the head is dropped: once another key is listed, a page with the marker's key is checked
 * (and refused) as any going back. A key before the marker is still refused as a start ignored.
 */
export async function* withoutMarkerKey(
  pages: AsyncGenerator<ListingPage>,
  keyMarker: string | undefined,
): AsyncGenerator<ListingPage> {
  let head = keyMarker !== undefined
  for await (const page of pages) {
    if (!head) {
      yield page
      continue
    }
    const other = (entry: ListedEntry) => entry.key !== keyMarker
    head = !page.versions.some(other) && !page.deleteMarkers.some(other)
    // lastVersionEntry and the next markers stay: they say where the next page starts.
    yield { ...page, versions: page.versions.filter(other), deleteMarkers: page.deleteMarkers.filter(other) }
  }
}

function notAdvancing(action: string, page: number): SourceError {
  return new SourceError(
    `${action}: page ${page} lists a key at or before one already listed: the store's listing does not advance (or is not in S3's key order): its figures would be wrong`,
    'failed',
  )
}

/** Checks the pages of one ListObjectsV2 listing that starts after `startAfter` (the start when undefined). */
export class ObjectsOrder {
  readonly #action: string
  #position: string | undefined
  #pages = 0

  constructor(action: string, startAfter: string | undefined) {
    this.#action = action
    this.#position = startAfter
  }

  /** Throws when a key of `page` is not past the position; then moves the position to its highest key. */
  check(page: ListingPage): void {
    this.#pages++
    const position = this.#position
    let highest = position
    for (const object of page.contents) {
      const key = object.key ?? ''
      // In order, each key is past the highest so far, hence past the position: one comparison.
      if (highest === undefined || compareKeys(key, highest) > 0) highest = key
      else if (position !== undefined && compareKeys(key, position) <= 0) throw this.#refusal()
    }
    this.#position = highest
  }

  #refusal(): SourceError {
    return this.#pages === 1
      ? new StartIgnoredError(this.#action, 'StartAfter')
      : notAdvancing(this.#action, this.#pages)
  }
}

/**
 * Checks the pages of one ListObjectVersions listing that starts after the key `keyMarker` (the
 * start when undefined). A key's versions may go on in the next page, newest first after its
 * latest: there, the same key is past the position when it is neither its latest again nor a
 * version listed in the previous page.
 */
export class VersionsOrder {
  readonly #action: string
  #key: string | undefined
  /** The version ids of `#key` in the previous page; undefined when `#key` is a KeyMarker alone. */
  #ids: Set<string | undefined> | undefined
  #pages = 0

  constructor(action: string, keyMarker: string | undefined) {
    this.#action = action
    this.#key = keyMarker
  }

  check(page: ListingPage): void {
    this.#pages++
    const entries = [page.versions, page.deleteMarkers]
    let highest = this.#key
    for (const list of entries)
      for (const entry of list) {
        const key = entry.key ?? ''
        if (!this.#past(key, entry)) throw this.#refusal()
        if (highest === undefined || compareKeys(key, highest) > 0) highest = key
      }
    if (highest === undefined) return
    const ids = new Set<string | undefined>()
    for (const list of entries) for (const entry of list) if (entry.key === highest) ids.add(entry.versionId)
    // A page holding none of the highest key's entries (an empty page) keeps the previous ids.
    if (ids.size > 0 || highest !== this.#key) this.#ids = ids
    this.#key = highest
  }

  #past(key: string, entry: ListedEntry): boolean {
    if (this.#key === undefined) return true
    const order = compareKeys(key, this.#key)
    if (order !== 0 || this.#ids === undefined) return order > 0
    // Without a version id (a store that gives none) only the latest can be told repeated.
    return entry.isLatest !== true && (entry.versionId === undefined || !this.#ids.has(entry.versionId))
  }

  #refusal(): SourceError {
    return this.#pages === 1 && this.#ids === undefined
      ? new StartIgnoredError(this.#action, 'KeyMarker')
      : notAdvancing(this.#action, this.#pages)
  }
}

/**
 * Whether a plan's probe answer shows StartAfter ignored: S3 answers only keys after StartAfter,
 * and only the common prefixes of such keys (a prefix of StartAfter itself, or one after it).
 */
export function probeIgnoresStart(request: ProbeRequest, answer: ProbeAnswer): boolean {
  const start = request.startAfter
  if (start === '') return false
  return (
    answer.keys.some((key) => compareKeys(key, start) <= 0) ||
    answer.prefixes.some((prefix) => compareKeys(prefix, start) <= 0 && !start.startsWith(prefix))
  )
}
