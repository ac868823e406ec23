import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { findSamples, sampleValue } from '../support/exposition.js'
import { startS3Gate } from '../support/s3-gate.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import { startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * What scans cost the store, counted by the exporter (s3_requests_total, s3_request_errors_total,
 * usage_last_scan_listing_pages) and on the wire by a gate in front of s3rver: the two must
 * agree request for request, and the listing must take exactly ceil(keys / 1,000) pages a bucket.
 */

let s3: S3rverProcess
/** 2,345 keys: three pages of 1,000. */
const COUNTED_KEYS = 2_345
const PAGES_PER_SCAN = Math.ceil(COUNTED_KEYS / 1000) + 1 + 1

before(async () => {
  s3 = await startS3rver()
  await fillBucket(
    s3.client,
    'counted',
    Array.from({ length: COUNTED_KEYS }, (_, index) => ({
      key: `k/${String(index).padStart(5, '0')}`,
      size: 1,
    })),
  )
  await fillBucket(s3.client, 'small', [{ key: 'a', size: 10 }])
  await fillBucket(s3.client, 'empty', [])
})

after(async () => {
  await s3?.stop()
})

test('requests counted by operation match the wire; pages per scan are ceil(keys/1000)', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let listings = 0
  let throttled = false
  gate.policy = (request) => {
    // Two scan rounds, then the third one's ListBuckets is held: nothing moves while we look.
    if (request.operation === 'ListBuckets' && ++listings > 2) return 'hang'
    // One throttled page (the second of `counted`, in the first round): retried, one more request.
    if (
      !throttled &&
      request.operation === 'ListObjectsV2' &&
      request.bucket === 'counted' &&
      request.query.has('continuation-token')
    ) {
      throttled = true
      return { status: 503, code: 'SlowDown' }
    }
    return 'forward'
  }
  const cwd = await scratchFolder(t, 'objstore-s3-requests-')
  const exporter = await startServingProcess(
    t,
    {
      ...s3.exporterEnv,
      S3_ENDPOINT: gate.endpoint,
      DATA_DIR: cwd,
      SCAN_INTERVAL_SECONDS: '1',
      SCAN_TIMEOUT_SECONDS: '120',
      // One bucket at a time: s3rver's NotImplemented for ListMultipartUploads is met once.
      SCAN_CONCURRENCY: '1',
    },
    cwd,
  )
  await exporter.waitForLogs('two scans', (line) => line.msg === 'usage scan finished', 2, 60_000)
  await waitFor('the third round held at ListBuckets', () => gate.heldCount === 1, { timeoutMs: 30_000 })
  const scrape = await exporter.scrape()

  const counted = (name: string, operation: string) => sampleValue(scrape, `objstore_${name}`, { operation })
  // Every operation the gate saw, counted as often by the exporter.
  const operations = new Set(gate.seen.map((request) => request.operation))
  assert.deepEqual(
    [...operations].sort(),
    findSamples(scrape, 'objstore_s3_requests_total')
      .map((sample) => sample.labels.operation)
      .sort(),
  )
  for (const operation of operations) {
    assert.equal(counted('s3_requests_total', operation), gate.count(operation), operation)
  }
  // Three ListBuckets (the third one held), each round's pages, and the throttled page's retry.
  assert.equal(counted('s3_requests_total', 'ListBuckets'), 3)
  assert.equal(counted('s3_requests_total', 'ListObjectsV2'), 2 * PAGES_PER_SCAN + 1)
  assert.equal(counted('s3_request_errors_total', 'ListObjectsV2'), 1)
  assert.equal(counted('s3_request_errors_total', 'ListBuckets'), 0)
  // s3rver answers NotImplemented: asked once, then remembered as unsupported.
  assert.equal(counted('s3_requests_total', 'ListMultipartUploads'), 1)
  assert.equal(counted('s3_request_errors_total', 'ListMultipartUploads'), 1)

  // Pages of the last round alone: 3 + 1 + 1 listing pages, one bucket list, no upload listing.
  assert.equal(counted('usage_last_scan_listing_pages', 'ListObjectsV2'), PAGES_PER_SCAN)
  assert.equal(counted('usage_last_scan_listing_pages', 'ListBuckets'), 1)
  assert.equal(counted('usage_last_scan_listing_pages', 'ListMultipartUploads'), 0)
  assert.equal(
    scrape.types.get('objstore_s3_requests_total') ?? scrape.types.get('objstore_s3_requests'),
    'counter',
  )
})
