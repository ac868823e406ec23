import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'
import {
  type StoredBucket,
  type StoredVersion,
  startXmlStore,
  type XmlStore,
} from '../support/s3-xml-store.js'
import { assertBucketUsage, assertStorageClasses, type WrittenObject } from '../support/usage-expectations.js'

/**
 * Versions, delete markers and incomplete multipart uploads, which s3rver cannot list: a local
 * endpoint answers with the XML AWS documents for ListObjectVersions and ListMultipartUploads, in
 * pages of four so that one key's history straddles pages, and the exporter's real SDK parses it.
 */

const T0 = 1_780_000_000
const at = (seconds: number) => new Date((T0 + seconds) * 1000)

function history(
  key: string,
  sizes: readonly number[],
  firstSecond: number,
  storageClass?: string,
): StoredVersion[] {
  // Newest first, as S3 lists a key's versions.
  return sizes.map((size, index) => ({
    key,
    versionId: `${key}-v${sizes.length - index}`,
    isLatest: index === 0,
    lastModified: at(firstSecond + sizes.length - index),
    size,
    ...(index === 0 && storageClass ? { storageClass } : {}),
  }))
}

const VERSIONED: StoredBucket = {
  name: 'versioned',
  versions: [
    ...history('a.txt', [300, 200, 100], 10, 'STANDARD_IA'),
    { key: 'b.txt', versionId: 'b-dm', isLatest: true, lastModified: at(50) },
    { key: 'b.txt', versionId: 'b-v1', isLatest: false, lastModified: at(20), size: 50 },
    { key: 'c.txt', versionId: 'null', isLatest: true, lastModified: at(5), size: 10 },
    ...history('d.bin', [2048, ...new Array(11).fill(1000)], 100),
    { key: 'e.log', versionId: 'e-v1', isLatest: true, lastModified: at(400), size: 5_000_000 },
  ],
  uploads: [
    { key: 'big/1.iso', uploadId: 'u1', initiated: at(-5000) },
    { key: 'big/1.iso', uploadId: 'u2', initiated: at(-100) },
    { key: 'big/2.iso', uploadId: 'u3', initiated: at(-9000) },
    { key: 'c.txt', uploadId: 'u4', initiated: at(0) },
    { key: 'z', uploadId: 'u5', initiated: at(7) },
  ],
}

const QUIET: StoredBucket = {
  name: 'quiet',
  versions: [{ key: 'only', versionId: 'null', isLatest: true, lastModified: at(1), size: 77 }],
  uploads: [],
}

/** The current objects of VERSIONED, as a scrape must count them (b.txt is deleted). */
const CURRENT: WrittenObject[] = [
  { size: 300, modifiedSeconds: T0 + 13, storageClass: 'STANDARD_IA' },
  { size: 10, modifiedSeconds: T0 + 5 },
  { size: 2048, modifiedSeconds: T0 + 112 },
  { size: 5_000_000, modifiedSeconds: T0 + 400 },
]

let store: XmlStore

before(async () => {
  store = await startXmlStore([VERSIONED, QUIET], 4)
})

after(async () => {
  await store?.close()
})

function env(extra: Record<string, string>): Record<string, string> {
  return {
    BUCKETS_SOURCE: 's3',
    S3_ENDPOINT: store.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    SCAN_INTERVAL_SECONDS: '3600',
    BUCKET_METRICS: 'all',
    ...extra,
  }
}

test('SCAN_VERSIONS: versions, delete markers, noncurrent bytes and version ranges across pages', async (t) => {
  const exporter = await startExporter(env({ SCAN_VERSIONS: 'true' }))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()

  assertBucketUsage(scrape, 'versioned', CURRENT)
  assertStorageClasses(scrape, 'versioned', CURRENT)
  const bucket = { bucket: 'versioned' }
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_usage_versions', bucket),
    19,
    'versions and delete markers',
  )
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_deletemarkers', bucket), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_noncurrent_bytes', bucket), 200 + 100 + 50 + 11 * 1000)
  const ranges = Object.fromEntries(
    findSamples(scrape, 'objstore_bucket_objects_version_distribution', bucket).map((sample) => [
      sample.labels.range,
      sample.value,
    ]),
  )
  assert.deepEqual(ranges, {
    UNVERSIONED: 1,
    SINGLE_VERSION: 1,
    BETWEEN_2_AND_10: 2,
    BETWEEN_10_AND_100: 1,
    BETWEEN_100_AND_1000: 0,
    BETWEEN_1000_AND_10000: 0,
    GREATER_THAN_10000: 0,
  })
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_versions', { bucket: 'quiet' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_cluster_usage_versions'), 20)
  assert.equal(sampleValue(scrape, 'objstore_cluster_usage_deletemarkers'), 1)
  assert.equal(
    store.seen.filter(
      (request) => request.operation === 'ListObjectVersions' && request.bucket === 'versioned',
    ).length,
    5,
    '19 entries in pages of 4',
  )
  // Current objects are never listed: ListObjectsV2 only as the key-range plan's probes (a
  // Delimiter page or one key), made once the versions listing ran two pages (S3_LIST_RANGES).
  const listings = store.seen.filter((request) => request.operation === 'ListObjectsV2')
  assert.ok(
    listings.every((request) => request.query.has('delimiter') || request.query.get('max-keys') === '1'),
    JSON.stringify(listings.map((request) => request.query.toString())),
  )
})

test('noncurrent age from the successor, across pages of four; ListParts not implemented: counts kept', async (t) => {
  // The scan starts a day and 107.5 s after T0: a version replaced at T0 + 107 s or earlier has
  // been noncurrent for more than a day, one replaced at T0 + 108 s or later for less.
  const exporter = await startExporter(env({ SCAN_VERSIONS: 'true' }), {
    scanClock: () => (T0 + 86_400 + 107.5) * 1000,
  })
  t.after(() => exporter.close())
  await exporter.exporter.scanner.scanNow()
  const scrape = await exporter.scrape()
  const bands = (family: string) =>
    Object.fromEntries(
      findSamples(scrape, `objstore_${family}`, { bucket: 'versioned' })
        .filter((sample) => sample.value !== 0)
        .map((sample) => [sample.labels.age, sample.value]),
    )
  // d.bin's eleven old versions were replaced at T0 + 112, 111, ... 102 s (its history spans three
  // pages): five under a day, six over; a.txt's two at T0 + 13 and 12 s, b.txt's by its marker at 50 s.
  assert.deepEqual(bands('bucket_noncurrent_age_versions'), { lt_1d: 5, lt_7d: 6 + 2 + 1 })
  assert.deepEqual(bands('bucket_noncurrent_age_bytes'), { lt_1d: 5000, lt_7d: 6000 + 200 + 100 + 50 })
  // Current objects: a.txt (T0 + 13 s) and c.txt (5 s) over a day old; d.bin (112 s), e.log (400 s) under.
  assert.deepEqual(bands('bucket_age_bytes'), { lt_1d: 2048 + 5_000_000, lt_7d: 300 + 10 })
  const bucket = { bucket: 'versioned' }
  assert.equal(sampleValue(scrape, 'objstore_bucket_expired_deletemarkers', bucket), 0)
  // The store lists uploads but answers ListParts NotImplemented: counted, not sized.
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_incomplete', bucket), 5)
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_stale', bucket), 0)
  for (const family of ['incomplete_bytes', 'unsized', 'stale_bytes']) {
    assert.equal(findSamples(scrape, `objstore_bucket_multipart_uploads_${family}`, bucket).length, 0, family)
  }
  const notes = exporter.logs.lines.filter((line) => line.operation === 'ListParts')
  assert.equal(notes.length, 1, 'said once')
  assert.match(String(notes[0]?.msg), /does not implement ListParts: multipart byte families omitted/)
})

test('incomplete multipart uploads: count and oldest initiation across pages; none is 0 without a time', async (t) => {
  const exporter = await startExporter(env({}))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_multipart_uploads_incomplete', { bucket: 'versioned' }),
    5,
  )
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_multipart_oldest_initiated_timestamp_seconds', {
      bucket: 'versioned',
    }),
    T0 - 9000,
  )
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_incomplete', { bucket: 'quiet' }), 0)
  assert.equal(
    findSamples(scrape, 'objstore_bucket_multipart_oldest_initiated_timestamp_seconds', { bucket: 'quiet' })
      .length,
    0,
  )
})

test('without SCAN_VERSIONS the current objects come from ListObjectsV2 pages, with the same figures', async (t) => {
  const exporter = await startExporter(env({}))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assertBucketUsage(scrape, 'versioned', CURRENT)
  assertStorageClasses(scrape, 'versioned', CURRENT)
  assertBucketUsage(scrape, 'quiet', [{ size: 77, modifiedSeconds: T0 + 1 }])
  assert.equal(findSamples(scrape, 'objstore_bucket_usage_versions').length, 0)
  assert.equal(findSamples(scrape, 'objstore_cluster_usage_versions').length, 0)
})

test('a store listing a storage class of its own per object: 64 names kept, the rest and odd names counted as _other', async (t) => {
  // 70 classes of 10 bytes each in ListObjectsV2 order, then one too long and one with a newline.
  const names = [
    ...Array.from({ length: 70 }, (_, index) => `CLASS_${String(index).padStart(2, '0')}`),
    'X'.repeat(65),
    'COLD\nTIER',
  ]
  const classy: StoredBucket = {
    name: 'classy',
    versions: names.map((storageClass, index) => ({
      key: `k${String(index).padStart(3, '0')}`,
      versionId: 'null',
      isLatest: true,
      lastModified: at(index),
      size: 10,
      storageClass,
    })),
    uploads: [],
  }
  const classyStore = await startXmlStore([classy], 1000)
  t.after(() => classyStore.close())
  const exporter = await startExporter({ ...env({}), S3_ENDPOINT: classyStore.endpoint })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  const shown = findSamples(scrape, 'objstore_bucket_storage_class_bytes', { bucket: 'classy' })
  const byClass = new Map(shown.map((sample) => [sample.labels.storage_class, sample.value]))
  // The 64 names are counted per process (the exporter here shares it with this file's other
  // tests, whose classes came first) and which come first depends on the listing's order: at most
  // 64 names, each holding its own object, and the rest in _other.
  assert.ok(byClass.size <= 65 && byClass.size >= 60, `${byClass.size} classes: 64 names at most and _other`)
  for (const [name, bytes] of byClass)
    if (name !== '_other') assert.deepEqual([name, bytes], [name?.match(/^CLASS_\d\d$/)?.[0], 10])
  assert.equal(
    byClass.get('_other'),
    10 * (names.length - (byClass.size - 1)),
    'the long name, the newline and past the bound',
  )
  assert.equal(
    [...byClass.values()].reduce((sum, bytes) => sum + bytes, 0),
    sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'classy' }),
    'every byte in one class',
  )
})
