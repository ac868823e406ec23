import assert from 'node:assert/strict'
import { access, mkdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'
import { runCommand } from '../support/process.js'
import { type StoredBucket, startXmlStore, type XmlStore } from '../support/s3-xml-store.js'
import { scratchFolder } from '../support/scratch.js'
import { startServingProcess } from '../support/serving-process.js'
import { readStateDocument } from '../support/state-file.js'
import { waitFor } from '../support/wait-for.js'

/** The state file's records by bucket, once the first scan has written it (atomically). */
async function stateRecords(path: string): Promise<Map<string, Record<string, unknown>>> {
  await waitFor(`${path} written`, () =>
    access(path).then(
      () => true,
      () => false,
    ),
  )
  const state = await readStateDocument(path)
  return new Map(
    state.snapshot.buckets.map((record) => [record.name as string, record.usage as Record<string, unknown>]),
  )
}

/**
 * The scan folds only what BUCKET_METRICS writes (issue 14 follow-up): with the default groups an
 * S3 scan sends no ListParts and no bucket settings request (counted at the store), and neither
 * the record nor the state file holds age bands, prefixes, hidden figures or settings; each
 * opt-in group brings back its own work and figures, exactly.
 */

const T0 = 1_780_000_000
const at = (seconds: number) => new Date((T0 + seconds) * 1000)
const DAY = 86_400

const BUCKET: StoredBucket = {
  name: 'folds',
  versions: [
    { key: 'a/1', versionId: 'a1-v2', isLatest: true, lastModified: at(0), size: 300 },
    { key: 'a/1', versionId: 'a1-v1', isLatest: false, lastModified: at(-10 * DAY), size: 200 },
    { key: 'b/2', versionId: 'b2-v1', isLatest: true, lastModified: at(-40 * DAY), size: 50 },
    // A key whose only entry is a delete marker: an expired delete marker.
    { key: 'gone', versionId: 'gone-dm', isLatest: true, lastModified: at(-2 * DAY) },
  ],
  uploads: [
    { key: 'big.iso', uploadId: 'u1', initiated: at(-30 * DAY), parts: [5_000, 7_000] },
    { key: 'new.iso', uploadId: 'u2', initiated: at(-1), parts: [11] },
  ],
}

/** The S3 requests that only opt-in groups need. */
const OPT_IN_REQUESTS = [
  'ListParts',
  'GetBucketVersioning',
  'GetObjectLockConfiguration',
  'GetBucketLifecycleConfiguration',
  'GetBucketTagging',
]

let store: XmlStore

before(async () => {
  store = await startXmlStore([BUCKET], 1000)
})
after(async () => {
  await store?.close()
})

/** One scan with BUCKET_METRICS=`groups`: the store's requests by operation, the state file, a scrape. */
async function scanWith(t: test.TestContext, groups: string) {
  const folder = await scratchFolder(t, 'objstore-scan-folds-')
  const stateFile = join(folder, 'state.json')
  store.seen.length = 0
  const exporter = await startExporter(
    {
      ...store.exporterEnv,
      SCAN_INTERVAL_SECONDS: '3600',
      S3_BUCKET_SETTINGS: 'true',
      BUCKET_TAG_LABELS: 'team',
      STATE_FILE: stateFile,
      BUCKET_METRICS: groups,
    },
    { scanClock: () => (T0 + 1) * 1000 },
  )
  t.after(() => exporter.close())
  const requests: Record<string, number> = {}
  for (const { operation } of store.seen) requests[operation] = (requests[operation] ?? 0) + 1
  const usage = (await stateRecords(stateFile)).get('folds')
  assert.ok(usage, 'the bucket is in the state file')
  return { requests, usage, scrape: await exporter.scrape() }
}

const optInRequests = (requests: Record<string, number>) =>
  Object.fromEntries(OPT_IN_REQUESTS.flatMap((name) => (requests[name] ? [[name, requests[name]]] : [])))

test('default groups: no ListParts, no settings requests; the state file holds only default figures', async (t) => {
  const { requests, usage, scrape } = await scanWith(t, '')
  assert.deepEqual(optInRequests(requests), {})
  assert.equal(requests.ListMultipartUploads, 1, 'uploads are still counted')
  assert.equal(requests.ListObjectVersions, 1)
  for (const figure of ['ageBytes', 'ageObjects', 'storageClassAgeBytes', 'prefixes', 'settings', 'index'])
    assert.equal(figure in usage, false, figure)
  // `versions` keeps noncurrent bytes; `multipart` keeps the count and the oldest start.
  assert.deepEqual(usage.versions, {
    versions: 4,
    deleteMarkers: 1,
    noncurrentBytes: 200,
    versionRanges: [0, 2, 1, 0, 0, 0, 0],
  })
  assert.deepEqual(usage.multipart, { incomplete: 2, oldestInitiatedSeconds: T0 - 30 * DAY })
  const bucket = { bucket: 'folds' }
  assert.equal(sampleValue(scrape, 'objstore_bucket_noncurrent_bytes', bucket), 200)
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_incomplete', bucket), 2)
  assert.equal(findSamples(scrape, 'objstore_bucket_multipart_uploads_incomplete_bytes').length, 0)
})

test('multipart left out: no ListMultipartUploads request, no upload figures; hidden alone still lists them', async (t) => {
  const without = await scanWith(t, 'usage,versions,scan')
  assert.equal(without.requests.ListMultipartUploads, undefined)
  assert.equal('multipart' in without.usage, false)
  assert.equal(findSamples(without.scrape, 'objstore_bucket_multipart_uploads_incomplete').length, 0)
  // hidden's upload bytes need the listing: asked for, it is made.
  const hidden = await scanWith(t, 'usage,scan,hidden')
  assert.equal(hidden.requests.ListMultipartUploads, 1)
  assert.equal((hidden.usage.multipart as Record<string, unknown> | undefined)?.bytes, 12_011)
})

test('hidden: ListParts per upload and the hidden figures, exactly; still no settings requests', async (t) => {
  const { requests, usage, scrape } = await scanWith(t, 'default,hidden')
  assert.deepEqual(optInRequests(requests), { ListParts: 2 })
  assert.deepEqual(usage.multipart, {
    incomplete: 2,
    stale: 1,
    oldestInitiatedSeconds: T0 - 30 * DAY,
    bytes: 12_011,
    unsized: 0,
    staleBytes: 12_000,
  })
  const versions = usage.versions as Record<string, unknown>
  assert.equal(versions.expiredDeleteMarkers, 1)
  // a/1's old version became noncurrent when a/1-v2 was written, a second before the scan.
  assert.deepEqual(versions.noncurrentAgeBytes, [200, 0, 0, 0, 0, 0, 0])
  assert.equal('ageBytes' in usage || 'prefixes' in usage || 'settings' in usage, false)
  const bucket = { bucket: 'folds' }
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_incomplete_bytes', bucket), 12_011)
  assert.equal(sampleValue(scrape, 'objstore_bucket_multipart_uploads_stale_bytes', bucket), 12_000)
  assert.equal(sampleValue(scrape, 'objstore_bucket_expired_deletemarkers', bucket), 1)
})

test('info: the settings and tagging requests, no ListParts; age and prefixes: their bands and rows', async (t) => {
  const info = await scanWith(t, 'default,info')
  // The test store implements none of them: each is asked once, then remembered as unsupported.
  assert.deepEqual(optInRequests(info.requests), {
    GetBucketVersioning: 1,
    GetObjectLockConfiguration: 1,
    GetBucketLifecycleConfiguration: 1,
    GetBucketTagging: 1,
  })
  assert.deepEqual(info.usage.settings, {}, 'the store answered none')

  const ages = await scanWith(t, 'default,age,prefixes')
  assert.deepEqual(optInRequests(ages.requests), {})
  // a/1 written a second before the scan, b/2 forty days before it.
  assert.deepEqual(ages.usage.ageBytes, [300, 0, 0, 50, 0, 0, 0])
  assert.deepEqual(ages.usage.storageClassAgeBytes, { STANDARD: [300, 0, 0, 50, 0, 0, 0] })
  assert.deepEqual(
    Object.fromEntries(
      findSamples(ages.scrape, 'objstore_bucket_prefix_usage_total_bytes', { bucket: 'folds' }).map(
        (sample) => [sample.labels.prefix, sample.value],
      ),
    ),
    { 'a/': 300, 'b/': 50 },
  )
  assert.equal('expiredDeleteMarkers' in (ages.usage.versions as object), false)
})

test('fs: the default groups fold no age bands and no prefixes; named, exactly', async (t) => {
  const folder = await scratchFolder(t, 'objstore-scan-folds-fs-')
  const data = join(folder, 'data')
  await mkdir(join(data, 'photos', '2026'), { recursive: true })
  await writeFile(join(data, 'photos', '2026', 'new.jpg'), Buffer.alloc(1_000))
  await writeFile(join(data, 'photos', 'old.jpg'), Buffer.alloc(400))
  const old = new Date((T0 - 100 * DAY) * 1000)
  await utimes(join(data, 'photos', 'old.jpg'), old, old)
  const scan = async (groups: string) => {
    const stateFile = join(folder, `state-${groups || 'default'}.json`)
    const exporter = await startExporter(
      { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600', BUCKET_METRICS: groups },
      { scanClock: () => T0 * 1000 },
    )
    t.after(() => exporter.close())
    const usage = (await stateRecords(stateFile)).get('photos') ?? {}
    return { usage, scrape: await exporter.scrape() }
  }
  const plain = await scan('')
  assert.equal(plain.usage.bytes, 1_400)
  assert.equal('ageBytes' in plain.usage || 'prefixes' in plain.usage, false)
  assert.equal(findSamples(plain.scrape, 'objstore_bucket_age_bytes').length, 0)

  const named = await scan('default,age,prefixes')
  // new.jpg was written now, after the scan clock's start: a future time counts as lt_1d.
  assert.deepEqual(named.usage.ageBytes, [1_000, 0, 0, 0, 400, 0, 0])
  assert.deepEqual(named.usage.ageObjects, [1, 0, 0, 0, 1, 0, 0])
  assert.deepEqual(
    Object.fromEntries(
      findSamples(named.scrape, 'objstore_bucket_prefix_usage_total_bytes', { bucket: 'photos' }).map(
        (sample) => [sample.labels.prefix, sample.value],
      ),
    ),
    { '2026/': 1_000, _root: 400 },
  )
})

test('settings of a group BUCKET_METRICS leaves out: one warning a group, naming them; check-config and scan --once too', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-scan-folds-warn-')
  const env = {
    LOG_MODE: 'json',
    DATA_DIR: join(cwd, 'data'),
    PREFIX_DEPTH: '2',
    PREFIX_DELIMITER: '-',
    // 0 turns the sizing off: set to its off value, it is no trap.
    MULTIPART_PARTS_MAX_UPLOADS: '0',
    BUCKET_METRICS: 'usage,scan',
  }
  const serving = await startServingProcess(t, env, cwd)
  const [warning] = await serving.waitForLogs('the warning', (line) => line.group !== undefined)
  assert.equal(warning?.level, 40)
  assert.deepEqual(warning?.variables, ['PREFIX_DEPTH', 'PREFIX_DELIMITER'])
  const line =
    'PREFIX_DEPTH, PREFIX_DELIMITER set, but BUCKET_METRICS leaves out the prefixes group, so nothing reads them: add prefixes (BUCKET_METRICS=usage,scan,prefixes) or remove them'
  assert.equal(warning?.msg, line)
  assert.equal(serving.logs().filter((entry) => entry.group !== undefined).length, 1)
  assert.equal(await serving.stop(), 0)

  const check = await runCommand(['check-config'], env, cwd)
  assert.equal(check.code, 0, check.stderr)
  assert.ok(check.stderr.split('\n').includes(`objstore-exporter: warning: ${line}`), check.stderr)
  // scan --once logs it too (stderr, as JSON lines: stdout holds only the result).
  const scan = await runCommand(['scan', '--once', '--format', 'json'], env, cwd)
  assert.equal(scan.code, 0, scan.stderr)
  const scanWarnings = scan.stderr
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as { msg?: string; level?: number })
    .filter((entry) => entry.msg === line)
  assert.equal(scanWarnings.length, 1, scan.stderr)
  assert.equal(scanWarnings[0]?.level, 40)
  // Named, the group reads them: no warning.
  const named = await runCommand(['check-config'], { ...env, BUCKET_METRICS: 'usage,scan,prefixes' }, cwd)
  assert.equal(named.code, 0, named.stderr)
  assert.doesNotMatch(named.stderr, /BUCKET_METRICS leaves out/)
})

test('BUCKETS_TOP_N: the _other row sums the age bands too (the one list of additive figures)', async (t) => {
  const folder = await scratchFolder(t, 'objstore-scan-folds-other-')
  const data = join(folder, 'data')
  const files = [
    { bucket: 'big', size: 10_000, daysOld: 0 },
    { bucket: 'aged', size: 100, daysOld: 100 },
    { bucket: 'recent', size: 50, daysOld: 2 },
    { bucket: 'recent', size: 7, daysOld: 2.5 },
  ]
  for (const [index, file] of files.entries()) {
    await mkdir(join(data, file.bucket), { recursive: true })
    const path = join(data, file.bucket, `f${index}`)
    await writeFile(path, Buffer.alloc(file.size))
    const when = new Date((T0 - file.daysOld * DAY) * 1000)
    await utimes(path, when, when)
  }
  const exporter = await startExporter(
    { DATA_DIR: data, SCAN_INTERVAL_SECONDS: '3600', BUCKETS_TOP_N: '1', BUCKET_METRICS: 'default,age' },
    { scanClock: () => T0 * 1000 },
  )
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  const bands = (family: string) =>
    Object.fromEntries(
      findSamples(scrape, family, { bucket: '_other' })
        .filter((sample) => sample.value !== 0)
        .map((sample) => [sample.labels.age, sample.value]),
    )
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: '_other' }), 157)
  assert.deepEqual(bands('objstore_bucket_age_bytes'), { lt_7d: 57, lt_180d: 100 })
  assert.deepEqual(bands('objstore_bucket_age_objects'), { lt_7d: 2, lt_180d: 1 })
  assert.equal(sampleValue(scrape, 'objstore_bucket_age_bytes', { bucket: 'big', age: 'lt_1d' }), 10_000)
})
