import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { SourceRequests } from '../sources/request-counter.js'
import type { Collector } from './types.js'

/**
 * What the exporter costs the store: requests by operation, counted by the source's client
 * (src/sources/request-counter.ts), and the listing pages of the last scan round. Read at
 * scrape time, no I/O. docs/operations.md ("What scans cost") turns them into requests per scan and money.
 */
export const sourceRequestFamilies = describe('scanner', {
  s3_requests_total: family(
    'counter',
    ['operation'],
    'S3 requests the s3 source sent, by operation (the SDK command: ListObjectsV2, ListObjectVersions, ListMultipartUploads, ListParts, ListBuckets, GetBucket...); a retry is another request.',
  ),
  s3_request_errors_total: family(
    'counter',
    ['operation'],
    'Of those, the S3 requests that failed: an error answer (throttling, denial, NotImplemented), a network error or timeout, an answer refused or unreadable.',
  ),
  rgw_admin_requests_total: family(
    'counter',
    ['operation'],
    'RGW admin API requests the rgw source sent, by operation (BucketStats: one per scan); a retry is another request.',
  ),
  rgw_admin_request_errors_total: family(
    'counter',
    ['operation'],
    'Of those, the RGW admin API requests that failed (an error answer, a network error or timeout, an answer refused or unreadable).',
  ),
  usage_last_scan_listing_pages: family(
    'gauge',
    ['operation'],
    'Listing pages (successful List* answers, up to 1,000 entries each) the last completed scan round received, every bucket included, by operation; absent until this process completed a round.',
  ),
})

type Families = typeof sourceRequestFamilies

const FAMILIES = {
  s3: { requests: 's3_requests_total', errors: 's3_request_errors_total' },
  rgw_admin: { requests: 'rgw_admin_requests_total', errors: 'rgw_admin_request_errors_total' },
} as const

export interface SourceRequestsCollectorOptions {
  /** The source's request counts. */
  readonly requests: SourceRequests
  /** The scanner's count of the last round's listing pages; undefined before the first round. */
  readonly lastScanListingPages: () => ReadonlyMap<string, number> | undefined
}

/**
 * The source's request counters, each operation with its errors (0 when none failed, so an error
 * ratio has both sides), and the last round's listing pages.
 */
export function createSourceRequestsCollector(options: SourceRequestsCollectorOptions): Collector<Families> {
  return {
    name: 'source_requests',
    families: sourceRequestFamilies,
    collect(out: MetricSet<Families>) {
      const { requests } = options
      const counts = requests.counts()
      const names = FAMILIES[requests.api]
      for (const [operation, sent] of counts.requests) {
        out.set(names.requests, { operation }, sent)
        out.set(names.errors, { operation }, counts.errors.get(operation) ?? 0)
      }
      for (const [operation, pages] of options.lastScanListingPages() ?? []) {
        out.set('usage_last_scan_listing_pages', { operation }, pages)
      }
    },
  }
}
