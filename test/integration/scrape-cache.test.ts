import assert from 'node:assert/strict'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { type TestContext, test } from 'node:test'
import { gunzipSync, inflateRawSync } from 'node:zlib'
import { saveState } from '../../src/snapshot/state-file.js'
import { rawGet, startExporter } from '../support/exporter.js'
import { type ParsedExposition, parseExposition, sampleValue } from '../support/exposition.js'
import { idiomaticRegistry, snapshotContent } from '../support/prom-client-usage.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { scratchFolder } from '../support/scratch.js'
import { bucketsIn } from '../support/usage-expectations.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

const OPENMETRICS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

const VARIANTS = [
  { format: 'text', gzip: false },
  { format: 'text', gzip: true },
  { format: 'openmetrics', gzip: false },
  { format: 'openmetrics', gzip: true },
] as const

interface VariantScrape {
  readonly label: string
  readonly format: 'text' | 'openmetrics'
  readonly text: string
  readonly parsed: ParsedExposition
}

/** One real scrape per format and encoding; gzip bodies must be one member (curl, browsers). */
async function scrapeVariants(url: string): Promise<VariantScrape[]> {
  const scrapes: VariantScrape[] = []
  for (const { format, gzip } of VARIANTS) {
    const response = await rawGet(url, {
      Accept: format === 'openmetrics' ? OPENMETRICS_ACCEPT : 'text/plain;version=0.0.4',
      ...(gzip ? { 'Accept-Encoding': 'gzip' } : {}),
    })
    const label = `${format}${gzip ? ' gzip' : ''}`
    assert.equal(response.status, 200, label)
    assert.equal(Number(response.headers['content-length']), response.body.length, `${label}: length`)
    let text: string
    if (gzip) {
      assert.equal(response.headers['content-encoding'], 'gzip', label)
      text = gunzipSync(response.body).toString('utf8')
      const firstMember = inflateRawSync(response.body.subarray(10, response.body.length - 8))
      assert.equal(firstMember.toString('utf8'), text, `${label}: one gzip member holds it all`)
    } else {
      text = response.body.toString('utf8')
    }
    if (format === 'openmetrics') assert.ok(text.endsWith('# EOF\n'), `${label}: ends with # EOF`)
    scrapes.push({ label, format, text, parsed: parseExposition(text) })
  }
  return scrapes
}

/**
 * An exporter serving a generated snapshot loaded from a state file; the snapshot is fresh, so no
 * scan replaces it during the test.
 */
async function serveGeneratedSnapshot(t: TestContext, buckets: string[], objectsPerBucket: number) {
  const folder = await scratchFolder(t, 'objstore-scrape-cache-')
  const data = join(folder, 'data')
  await mkdir(data)
  const generated = generateSnapshot({
    buckets,
    objectsPerBucket,
    prefixes: true,
    sourceName: 'fs',
    sourceId: `fs:${resolve(data)}`,
    completedAtMs: Date.now(),
  })
  const stateFile = join(folder, 'state.json')
  await saveState(stateFile, generated.snapshot)
  const exporter = await startExporter({
    DATA_DIR: data,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
    // Every group: the comparison with prom-client covers every per-bucket family.
    BUCKET_METRICS: 'all',
  })
  t.after(() => exporter.close())
  return { generated, exporter }
}

test('scrapes serve the snapshot exactly as prom-client renders it, in both formats, with and without gzip', async (t) => {
  const names = [
    ...Array.from({ length: 300 }, (_, index) => `bucket-${String(index).padStart(3, '0')}`),
    'quo"te',
    'back\\slash',
    'new\nline',
    'ünïcödé-😀',
  ]
  const { generated, exporter } = await serveGeneratedSnapshot(t, names, 10)

  const scrapes = await scrapeVariants(`${exporter.baseUrl}/metrics`)
  const reference = {
    text: snapshotContent(
      parseExposition(await idiomaticRegistry(generated, 'objstore', 'text').metrics()),
      'objstore',
    ),
    openmetrics: snapshotContent(
      parseExposition(await idiomaticRegistry(generated, 'objstore', 'openmetrics').metrics()),
      'objstore',
    ),
  }
  assert.ok(reference.text.samples.length > 300 * 40)
  for (const scrape of scrapes) {
    assert.deepEqual(snapshotContent(scrape.parsed, 'objstore'), reference[scrape.format], scrape.label)
    assert.deepEqual(bucketsIn(scrape.parsed), [...names].sort(), scrape.label)
    // What changes with time is still rendered per scrape.
    assert.ok(sampleValue(scrape.parsed, 'objstore_usage_snapshot_age_seconds') >= 0, scrape.label)
  }
})

test('a gzip scrape at scale is promtool-clean', { skip: promtoolSkipReason() }, async (t) => {
  const { exporter } = await serveGeneratedSnapshot(
    t,
    [...Array.from({ length: 500 }, (_, index) => `b-${index}`), 'quo"te', 'back\\slash', 'new\nline'],
    5,
  )
  const zipped = await rawGet(`${exporter.baseUrl}/metrics`, { 'Accept-Encoding': 'gzip' })
  assert.equal(zipped.headers['content-encoding'], 'gzip')
  assert.equal(promtoolCheckMetrics(gunzipSync(zipped.body).toString('utf8')), '')
})

test('a new snapshot replaces the cached rendering: a new bucket appears, a deleted one disappears, in every variant', async (t) => {
  const folder = await scratchFolder(t, 'objstore-scrape-cache-')
  const data = join(folder, 'data')
  const put = async (bucket: string, key: string, size: number) => {
    await mkdir(join(data, bucket), { recursive: true })
    await writeFile(join(data, bucket, key), Buffer.alloc(size))
  }
  await put('alpha', 'a1', 10)
  await put('alpha', 'a2', 20)
  await put('bravo', 'b1', 5)
  await put('odd "name\\ ü', 'o1', 1)
  const exporter = await startExporter({ DATA_DIR: data, SCAN_INTERVAL_SECONDS: '3600' })
  t.after(() => exporter.close())
  const url = `${exporter.baseUrl}/metrics`

  for (const scrape of await scrapeVariants(url)) {
    assert.deepEqual(bucketsIn(scrape.parsed), ['alpha', 'bravo', 'odd "name\\ ü'], scrape.label)
    assert.equal(sampleValue(scrape.parsed, 'objstore_bucket_usage_objects', { bucket: 'alpha' }), 2)
  }

  await rm(join(data, 'alpha'), { recursive: true })
  await put('bravo', 'b2', 7)
  await put('charlie', 'c1', 1)
  await put('charlie', 'c2', 2)
  await put('charlie', 'c3', 3)
  await exporter.exporter.scanner.scanNow()

  for (const scrape of await scrapeVariants(url)) {
    assert.deepEqual(bucketsIn(scrape.parsed), ['bravo', 'charlie', 'odd "name\\ ü'], scrape.label)
    assert.equal(scrape.text.includes('bucket="alpha"'), false, `${scrape.label}: alpha gone`)
    const objects = (bucket: string) =>
      sampleValue(scrape.parsed, 'objstore_bucket_usage_objects', { bucket })
    assert.equal(objects('bravo'), 2, scrape.label)
    assert.equal(objects('charlie'), 3, scrape.label)
    assert.equal(sampleValue(scrape.parsed, 'objstore_bucket_usage_total_bytes', { bucket: 'bravo' }), 12)
    assert.equal(sampleValue(scrape.parsed, 'objstore_cluster_buckets'), 3, scrape.label)
  }
})
