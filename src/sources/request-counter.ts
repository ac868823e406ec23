/**
 * Requests a source sent to its store, by operation, and how many of them failed: what the
 * exporter costs the store (and, on a metered service, its owner). Counted where the source's
 * client is built (an SDK middleware for s3, the admin client's one request function for rgw),
 * so no call site can miss it. Operations are the API's own names (`ListObjectsV2`,
 * `BucketStats`), a set the source's code bounds.
 */

/** Which API a source's requests go to: the `s3_*` or `rgw_admin_*` families. */
export type RequestApi = 's3' | 'rgw_admin'

export interface RequestCounts {
  /** Requests sent (each HTTP request once: a retry is another request), by operation. */
  readonly requests: ReadonlyMap<string, number>
  /** Of those, the ones that failed (an error answer, a network error, an answer refused). */
  readonly errors: ReadonlyMap<string, number>
}

/** What a source tells about its requests (UsageSource.requests). */
export interface SourceRequests {
  readonly api: RequestApi
  /** The counts so far, copied. */
  counts(): RequestCounts
}

export class RequestCounter implements SourceRequests {
  readonly api: RequestApi
  readonly #requests = new Map<string, number>()
  readonly #errors = new Map<string, number>()

  constructor(api: RequestApi) {
    this.api = api
  }

  /** A request of `operation` is being sent. */
  sent(operation: string): void {
    this.#requests.set(operation, (this.#requests.get(operation) ?? 0) + 1)
  }

  /** A request of `operation` failed. */
  failed(operation: string): void {
    this.#errors.set(operation, (this.#errors.get(operation) ?? 0) + 1)
  }

  counts(): RequestCounts {
    return { requests: new Map(this.#requests), errors: new Map(this.#errors) }
  }
}

/**
 * Listing pages received between two counts: the successful answers of the listing operations
 * (`List...`: ListObjectsV2, ListObjectVersions, ListMultipartUploads, ListParts, ListBuckets),
 * by operation. A page that failed and was retried is one page and two requests.
 */
export function listingPagesBetween(before: RequestCounts, after: RequestCounts): Map<string, number> {
  const pages = new Map<string, number>()
  for (const [operation, requests] of after.requests) {
    if (!operation.startsWith('List')) continue
    const answered = requests - (after.errors.get(operation) ?? 0)
    const answeredBefore = (before.requests.get(operation) ?? 0) - (before.errors.get(operation) ?? 0)
    pages.set(operation, answered - answeredBefore)
  }
  return pages
}
