import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { slowPages } from '../support/listing-comparison.js'
import { startS3Gate } from '../support/s3-gate.js'
import {
  type StoredBucket,
  type StoredVersion,
  type StoreQuirks,
  startXmlStore,
  type XmlStore,
} from '../support/s3-xml-store.js'

/**
 * Stores that lie about where a listing stands (issue 23, items 3 and 4), each a local endpoint
 * answering the documented XML with one quirk: StartAfter ignored (some S3-compatible stores do),
 * a lone KeyMarker ignored, VersionIdMarker ignored, a continuation token cycle, a store that never
 * moves. Each gives the exact figures (listed in one sequence of pages instead of key ranges) or
 * fails the bucket with its reason after a bounded number of requests: never a wrong success.
 */

const T0 = 1_780_000_000
const SIZE = 10_000

/** Keys `k-00000`...: one level of many keys. */
const flatKey = (index: number) => `k-${String(index).padStart(5, '0')}`
/** Keys `d00/o000`...: folders of 500 keys, which the plan's Delimiter probes find. */
const nestedKey = (index: number) =>
  `d${String(Math.floor(index / 500)).padStart(2, '0')}/o${String(index % 500).padStart(3, '0')}`

/** `count` keys, each one current version of SIZE bytes. */
function bucketOf(name: string, count: number, keyOf = flatKey): StoredBucket {
  return {
    name,
    versions: Array.from({ length: count }, (_, index) => ({
      key: keyOf(index),
      versionId: 'null',
      isLatest: true,
      lastModified: new Date((T0 + index) * 1000),
      size: SIZE,
    })),
    uploads: [],
  }
}

async function storeAndExporter(
  t: { after: (fn: () => Promise<void>) => void },
  bucket: StoredBucket,
  quirks: StoreQuirks,
  env: Record<string, string>,
): Promise<{ store: XmlStore; exporter: RunningExporter }> {
  const store = await startXmlStore([bucket], 1000, quirks)
  t.after(() => store.close())
  // Full pages slow, probes not: the plan is ready while the bucket is still being listed, as it
  // would be in a bucket of thousands of pages.
  const gate = await startS3Gate(Number(new URL(store.endpoint).port))
  gate.policy = slowPages(150)
  t.after(() => gate.close())
  const exporter = await startExporter({
    BUCKETS_SOURCE: 's3',
    S3_ENDPOINT: gate.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    SCAN_INTERVAL_SECONDS: '3600',
    SCAN_TIMEOUT_SECONDS: '20',
    SCAN_CONCURRENCY: '4',
    BUCKET_METRICS: 'usage,versions,scan',
    ...env,
  })
  t.after(() => exporter.close())
  return { store, exporter }
}

function figures(scrape: ParsedExposition, bucket: string) {
  return {
    success: sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }),
    objects: sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket }),
    bytes: sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket }),
  }
}

const listings = (store: XmlStore, operation: string) =>
  store.seen.filter((request) => request.operation === operation)

test('a store ignoring StartAfter: 20,000 objects counted exactly, listed in one sequence, said once, not probed again', async (t) => {
  const { store, exporter } = await storeAndExporter(
    t,
    bucketOf('many', 20_000, nestedKey),
    { ignoreStartAfter: true },
    {},
  )
  const first = await exporter.scrape()
  assert.deepEqual(figures(first, 'many'), { success: 1, objects: 20_000, bytes: 20_000 * SIZE })
  // Twenty pages and the plan's first probe, whose answer showed StartAfter ignored.
  const firstScan = listings(store, 'ListObjectsV2').length
  assert.equal(firstScan, 21)

  await exporter.exporter.scanner.scanNow()
  const second = await exporter.scrape()
  assert.deepEqual(figures(second, 'many'), { success: 1, objects: 20_000, bytes: 20_000 * SIZE })
  const secondScan = listings(store, 'ListObjectsV2').slice(firstScan)
  assert.equal(secondScan.length, 20, 'twenty pages, no probe: the store is remembered')
  assert.ok(secondScan.every((request) => !request.query.has('start-after')))
  const notes = exporter.logs.lines.filter((line) => /ignores StartAfter/.test(String(line.msg)))
  assert.equal(notes.length, 1, 'said once')
  assert.equal(
    sampleValue(second, 'objstore_s3_requests_total', { operation: 'ListObjectsV2' }),
    listings(store, 'ListObjectsV2').length,
  )
})

test('versions: a store ignoring a KeyMarker without a VersionIdMarker is listed in one sequence, exactly', async (t) => {
  const bucket = bucketOf('versions', 6_000)
  const { store, exporter } = await storeAndExporter(
    t,
    bucket,
    { ignoreLoneKeyMarker: true },
    { SCAN_VERSIONS: 'true' },
  )
  const scrape = await exporter.scrape()
  assert.deepEqual(figures(scrape, 'versions'), { success: 1, objects: 6_000, bytes: 6_000 * SIZE })
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_versions', { bucket: 'versions' }), 6_000)
  const notes = exporter.logs.lines.filter((line) => /ignores/.test(String(line.msg)))
  assert.equal(notes.length, 1, JSON.stringify(notes))
  assert.match(String(notes[0]?.msg), /^store ignores KeyMarker: buckets are listed page after page/)
  // A part's first page showed it: the parts were dropped and the bucket listed again, whole.
  const seenBefore = listings(store, 'ListObjectVersions').length
  assert.ok(
    store.seen.some((request) => request.query.has('key-marker') && !request.query.has('version-id-marker')),
  )
  assert.ok(seenBefore > 6, `${seenBefore} requests: the thrown-away parts and six pages`)
  t.diagnostic(`first scan: ${seenBefore} ListObjectVersions requests`)
  await exporter.exporter.scanner.scanNow()
  assert.equal(listings(store, 'ListObjectVersions').length - seenBefore, 6, 'six pages, in one sequence')
  assert.deepEqual(figures(await exporter.scrape(), 'versions'), {
    success: 1,
    objects: 6_000,
    bytes: 6_000 * SIZE,
  })
})

test('versions: a store ignoring VersionIdMarker (one key listed again) fails the bucket, not counted twice', async (t) => {
  // Three keys of three versions, pages of 1,000 entries do not straddle: pages of 4 do.
  const history = (key: string): StoredVersion[] =>
    [3, 2, 1].map((version, index) => ({
      key,
      versionId: `${key}-v${version}`,
      isLatest: index === 0,
      lastModified: new Date((T0 + version) * 1000),
      size: 100 * version,
    }))
  const bucket: StoredBucket = { name: 'straddling', versions: ['a', 'b', 'c'].flatMap(history), uploads: [] }
  const store = await startXmlStore([bucket], 4, { ignoreVersionIdMarker: true })
  t.after(() => store.close())
  const exporter = await startExporter({
    ...store.exporterEnv,
    SCAN_INTERVAL_SECONDS: '3600',
    SCAN_TIMEOUT_SECONDS: '20',
    BUCKET_METRICS: 'usage,versions,scan',
  })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'straddling' }), 0)
  const failure = exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed')
  assert.equal(failure.length, 1)
  assert.match(String(failure[0]?.error), /ListObjectVersions straddling: .*does not advance/)
  assert.equal(listings(store, 'ListObjectVersions').length, 2, 'failed at the second page')
})

test('a continuation token cycle (A -> B -> A) fails the bucket after three requests', async (t) => {
  const { store, exporter } = await storeAndExporter(
    t,
    bucketOf('cycle', 5_000),
    { nextStart: (start, pageSize) => (start === 2_000 ? 1_000 : start + pageSize) },
    { SCAN_CONCURRENCY: '1' },
  )
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'cycle' }), 0)
  const asked = listings(store, 'ListObjectsV2').map((request) => request.query.get('continuation-token'))
  assert.deepEqual(asked, [null, '1000', '2000'])
  const failure = exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed')
  assert.equal(failure.length, 1)
  assert.match(String(failure[0]?.error), /ListObjectsV2 cycle: .*token it gave before/)
  assert.equal(sampleValue(scrape, 'objstore_s3_requests_total', { operation: 'ListObjectsV2' }), 3)
})

test('a store that never moves (a new token, the first page again) fails the bucket at its second page', async (t) => {
  const { store, exporter } = await storeAndExporter(
    t,
    bucketOf('stuck', 5_000),
    { nextStart: () => 0, freshTokens: true },
    { SCAN_CONCURRENCY: '1' },
  )
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'stuck' }), 0)
  assert.equal(listings(store, 'ListObjectsV2').length, 2)
  const failure = exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed')
  assert.match(String(failure[0]?.error), /ListObjectsV2 stuck: .*does not advance/)
})
