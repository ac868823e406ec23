import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { rangeHolding } from '../../src/sources/s3/key-ranges.js'
import type { ParsedExposition } from './exposition.js'
import type { GateVerdict } from './s3-gate.js'
import type { S3Request } from './s3-requests.js'

/**
 * Compares what two exporters measured over the same buckets, one listing each bucket page after
 * page (S3_LIST_RANGES=0) and one in key ranges: the records field by field and the scrapes family
 * by family; only what measures the scan itself (its duration, when it ran) may differ.
 */

/**
 * Families about the scan rather than the buckets: when it ran, how long it took, and what it
 * cost in requests and pages (key ranges cost their plan's probes and a page more per range).
 */
const ABOUT_THE_SCAN = new Set([
  'objstore_bucket_scan_duration_seconds',
  'objstore_bucket_scan_last_success_timestamp_seconds',
  'objstore_usage_last_scan_completed_timestamp_seconds',
  'objstore_usage_last_scan_duration_seconds',
  'objstore_usage_last_scan_started_timestamp_seconds',
  'objstore_scrape_collector_duration_seconds',
  'objstore_usage_snapshot_age_seconds',
  'objstore_s3_requests_total',
  'objstore_s3_request_errors_total',
  'objstore_usage_last_scan_listing_pages',
  // Incremental scans (issue 25): the subtotals' own figures, which a full listing has none of.
  'objstore_bucket_ranges',
  'objstore_bucket_ranges_dirty',
  'objstore_bucket_ranges_relisted_ratio',
  'objstore_bucket_ranges_oldest_listed_timestamp_seconds',
])

/** What only an exporter with change events on has: the events' families (total and per bucket) and collector. */
const aboutEvents = (sample: ParsedExposition['samples'][number]) =>
  sample.name.startsWith('objstore_events_') ||
  sample.name.startsWith('objstore_bucket_events_') ||
  sample.labels.collector === 'events'

/** Every usage sample of a scrape but those about the scan (and change events), as sorted lines. */
export function usageLines(scrape: ParsedExposition): string[] {
  return scrape.samples
    .filter(
      (sample) =>
        sample.name.startsWith('objstore_') && !ABOUT_THE_SCAN.has(sample.name) && !aboutEvents(sample),
    )
    .map((sample) => `${sample.name}${JSON.stringify(sample.labels)} ${sample.value}`)
    .sort()
}

/** Each bucket's figures, by name (the record's usage: what the source measured). */
export function recordsOf(snapshot: UsageSnapshot): Record<string, unknown> {
  return Object.fromEntries(
    [...snapshot.buckets].map((record) => {
      assert.ok(record.scanSuccess, `${record.name} measured`)
      return [record.name, record.usage]
    }),
  )
}

export function assertSameMeasure(
  sequential: { snapshot: UsageSnapshot; scrape: ParsedExposition },
  ranged: { snapshot: UsageSnapshot; scrape: ParsedExposition },
): void {
  assert.deepStrictEqual(recordsOf(ranged.snapshot), recordsOf(sequential.snapshot))
  const one = usageLines(sequential.scrape)
  const other = usageLines(ranged.scrape)
  assert.ok(one.length > 50, `${one.length} samples compared`)
  assert.deepStrictEqual(other, one)
}

/**
 * Where the key ranges of `bucket` started: the first request of each range part (ListObjectsV2
 * with StartAfter and a full page, not a probe; ListObjectVersions with a key marker and no
 * version marker), distinct, in arrival order.
 */
export function rangeStarts(seen: readonly S3Request[], bucket: string, operation: string): string[] {
  const starts = seen
    .filter((request) => request.bucket === bucket && request.operation === operation)
    .filter((request) =>
      operation === 'ListObjectsV2'
        ? !request.query.has('continuation-token') &&
          !request.query.has('delimiter') &&
          request.query.get('max-keys') === '1000'
        : !request.query.has('version-id-marker'),
    )
    .map((request) => request.query.get(operation === 'ListObjectsV2' ? 'start-after' : 'key-marker') ?? '')
    .filter((start) => start !== '')
  return [...new Set(starts)]
}

/**
 * A bucket's record and scrape without what only an inventory or only a listing has: the
 * inventory's own families, and incomplete uploads (an inventory has none; a listing lists them).
 */
export function inventoryComparable(snapshot: UsageSnapshot, scrape: ParsedExposition, bucket: string) {
  const record = snapshot.buckets.find((found) => found.name === bucket)
  assert.ok(record?.scanSuccess, `${bucket} measured`)
  const { inventory: _inventory, multipart: _uploads, ...usage } = record.usage ?? {}
  const lines = usageLines(scrape).filter(
    (line) => !line.startsWith('objstore_bucket_inventory_') && !line.startsWith('objstore_bucket_multipart'),
  )
  assert.ok(lines.length > 50, `${lines.length} samples compared`)
  return { usage, lines }
}

/**
 * Asserts that a round's LIST requests to `bucket` (`seen`) were `operation` alone, for the key
 * ranges (ending at `throughs`) holding the `changed` keys, each listed from its start, and no
 * other range; returns those ranges' indexes.
 */
export function assertOnlyChangedRanges(
  seen: readonly S3Request[],
  bucket: string,
  operation: string,
  throughs: readonly string[],
  changed: readonly string[],
): Set<number> {
  const dirty = new Set(changed.map((key) => rangeHolding(throughs, key)))
  assert.ok(seen.length > 0, 'the marked ranges listed')
  assert.deepEqual(
    seen.filter((request) => request.bucket === bucket && request.operation !== operation),
    [],
    `only ${operation} requests, for the ranges`,
  )
  assert.deepEqual(
    rangeStarts(seen, bucket, operation).sort(),
    [...dirty]
      .filter((index) => index > 0)
      .map((index) => throughs[index - 1] as string)
      .sort(),
    'each dirty range listed from its start, and no other',
  )
  return dirty
}

/**
 * A gate policy for a store whose listing pages are slow and whose probes are not (a page of
 * 1,000 keys costs a store more than a one-key or prefixes-only answer): each full page waits
 * `pageMs`, so a bucket of a few pages is still being listed when its plan is ready, as a bucket
 * of thousands of pages would be. Without it the first listing may pass every boundary of so small
 * a bucket while the plan is made, and nothing would be split.
 */
export function slowPages(pageMs: number): (request: S3Request) => Promise<GateVerdict> {
  return async (request) => {
    const probe =
      request.operation === 'ListObjectsV2' &&
      (request.query.has('delimiter') || request.query.get('max-keys') === '1')
    if (!probe && (request.operation === 'ListObjectsV2' || request.operation === 'ListObjectVersions')) {
      await delay(pageMs)
    }
    return 'forward'
  }
}
