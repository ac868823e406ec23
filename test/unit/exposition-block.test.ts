import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib'
import { catalogue } from '../../src/collectors/catalogue.js'
import { createUsageCollector } from '../../src/collectors/usage.js'
import { writeSnapshotSeries } from '../../src/collectors/usage-series.js'
import { UsageExposition } from '../../src/exposition/usage-exposition.js'
import type { ExpositionBlock } from '../../src/metrics/exposition/block.js'
import { scrapeBody } from '../../src/metrics/exposition/body.js'
import { type ExpositionFormat, OPENMETRICS_EOF } from '../../src/metrics/exposition/format.js'
import { crc32Combine, deflateSegment, gzipMember } from '../../src/metrics/exposition/gzip.js'
import { renderScrape } from '../../src/metrics/exposition/scrape-assembler.js'
import { familyParts } from '../../src/metrics/exposition/writer.js'
import { MetricSet } from '../../src/metrics/metric-set.js'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { parseExposition } from '../support/exposition.js'
import { idiomaticRegistry, snapshotContent } from '../support/prom-client-usage.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

/** Bucket names a filesystem allows and the text format must escape (or carry as UTF-8). */
const ODD_NAMES = [
  'quo"te',
  'back\\slash',
  'trailing\\',
  'new\nline',
  'all "\\\n" of them',
  'ünïcödé-bücket',
  'emoji-😀',
  '{braces},comma=equals',
]

const FORMATS: readonly ExpositionFormat[] = ['text', 'openmetrics']

/** Names enough to span several render slices and several chunks per family, odd ones among them. */
function manyNames(count: number): string[] {
  return [
    ...Array.from({ length: count }, (_, index) => `bucket-${String(index).padStart(5, '0')}`),
    ...ODD_NAMES,
  ]
}

async function collect(parts: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<Buffer> {
  const buffers: Buffer[] = []
  for await (const part of parts) buffers.push(part)
  return Buffer.concat(buffers)
}

async function blockText(block: ExpositionBlock, format: ExpositionFormat): Promise<string> {
  return (await collect(block.text(format))).toString('utf8')
}

/** The snapshot's families rendered on this thread by the one writer, as text in `format`. */
function snapshotText(snapshot: UsageSnapshot, format: ExpositionFormat): string {
  const set = new MetricSet(catalogue)
  writeSnapshotSeries(set, snapshot)
  return Buffer.concat(familyParts(renderScrape(set, 'objstore').families, format)).toString('utf8')
}

function singleMemberText(body: Buffer): string {
  // One gzip member: a 10-byte header, one deflate stream, CRC-32 and length of the whole text.
  assert.deepEqual([...body.subarray(0, 3)], [0x1f, 0x8b, 0x08])
  const text = inflateRawSync(body.subarray(10, body.length - 8))
  assert.equal(body.readUInt32LE(body.length - 8), crc32(text), 'trailer CRC-32')
  assert.equal(body.readUInt32LE(body.length - 4), text.length, 'trailer length')
  return text.toString('utf8')
}

test('the block parses to what prom-client renders for the same snapshot, odd bucket names included', async () => {
  const generated = generateSnapshot({ buckets: manyNames(200), objectsPerBucket: 15, prefixes: true })
  const block = await new UsageExposition('minio').blockFor(generated.snapshot)
  for (const format of FORMATS) {
    const ours = snapshotContent(parseExposition(await blockText(block, format)), 'minio')
    const reference = snapshotContent(
      parseExposition(await idiomaticRegistry(generated, 'minio', format).metrics()),
      'minio',
    )
    assert.ok(ours.samples.length > 200 * 40, `${format}: ${ours.samples.length} samples`)
    assert.deepEqual(ours, reference, format)
  }
  const parsed = parseExposition(await blockText(block, 'text'))
  const buckets = new Set(parsed.samples.map((sample) => sample.labels.bucket))
  for (const name of ODD_NAMES) assert.ok(buckets.has(name), `bucket ${JSON.stringify(name)} round-trips`)
})

test('METRICS_SERVER_LABEL reaches every sample of a block, rendered inline or on the worker thread', async () => {
  for (const count of [20, 450]) {
    const { snapshot } = generateSnapshot({ buckets: manyNames(count), objectsPerBucket: 3 })
    const naming = { namespace: 'minio', constLabels: { server: 'node-1:9000' } }
    const parsed = parseExposition(
      await blockText(await new UsageExposition(naming).blockFor(snapshot), 'text'),
    )
    assert.ok(parsed.samples.length > count * 10, `${count} buckets: ${parsed.samples.length} samples`)
    assert.deepEqual(
      parsed.samples.filter((sample) => sample.labels.server !== 'node-1:9000'),
      [],
      `${count} buckets`,
    )
    assert.ok(parsed.samples.some((sample) => sample.name === 'minio_cluster_objects_size_distribution'))
  }
})

test('the block with odd bucket names is promtool-clean', { skip: promtoolSkipReason() }, async () => {
  const { snapshot } = generateSnapshot({ buckets: ODD_NAMES, objectsPerBucket: 5 })
  const block = await new UsageExposition('objstore').blockFor(snapshot)
  assert.equal(promtoolCheckMetrics(await blockText(block, 'text')), '')
})

test('the size gauge histogram in a block: _gsum/_gcount in OpenMetrics only, rendered inline or on the worker', async () => {
  // 11 buckets render on this thread, 600 on the worker (usage-render.ts), in chunks and segments.
  for (const count of [11, 600]) {
    const { snapshot } = generateSnapshot({
      buckets: manyNames(count - ODD_NAMES.length),
      objectsPerBucket: 3,
    })
    const block = await new UsageExposition('objstore').blockFor(snapshot)
    const measured = snapshot.buckets.filter((record) => record.usage).length
    for (const format of FORMATS) {
      const text = await blockText(block, format)
      assert.equal(
        text,
        snapshotText(snapshot, format),
        `${count} buckets, ${format}: as rendered on this thread`,
      )
      assert.equal(Buffer.byteLength(text), block.byteLength(format), `${count} ${format}: byte length`)
      const lines = (suffix: string) =>
        text.split('\n').filter((line) => line.startsWith(`objstore_bucket_object_size_bytes${suffix}{`))
          .length
      const om = format === 'openmetrics'
      assert.match(
        text,
        new RegExp(`# TYPE objstore_bucket_object_size_bytes ${om ? 'gaugehistogram' : 'histogram'}\n`),
      )
      assert.deepEqual(
        [lines('_sum'), lines('_count'), lines('_gsum'), lines('_gcount')],
        om ? [0, 0, measured, measured] : [measured, measured, 0, 0],
        `${count} buckets, ${format}`,
      )
    }
  }
})

test('a compressed scrape body is one gzip member holding exactly the uncompressed body', async () => {
  const { snapshot } = generateSnapshot({ buckets: manyNames(500), objectsPerBucket: 8 })
  const block = await new UsageExposition('objstore').blockFor(snapshot)
  const own = new MetricSet(catalogue)
  own.set('exporter_build_info', { version: '1.2.3', node_version: 'v20' }, 1)
  own.set('usage_snapshot_age_seconds', {}, 5)
  own.attach(block)
  const content = renderScrape(own, 'objstore')
  for (const format of FORMATS) {
    const unzipped = await scrapeBody(content, format, false)
    const plain = (await collect(unzipped.parts)).toString('utf8')
    assert.equal(Buffer.byteLength(plain), unzipped.byteLength, format)
    const zipped = await scrapeBody(content, format, true)
    const body = await collect(zipped.parts)
    assert.equal(body.length, zipped.byteLength)
    assert.equal(singleMemberText(body), plain, format)
    assert.equal(gunzipSync(body).toString('utf8'), plain, format)
    assert.equal(plain.endsWith(OPENMETRICS_EOF), format === 'openmetrics')
    const blockStart = plain.indexOf(await blockText(block, format))
    const ownStart = plain.indexOf('# HELP objstore_exporter_build_info')
    assert.ok(ownStart >= 0 && blockStart > ownStart, 'own families, then the block')
  }
})

test('a family written both in a block and per scrape is refused rather than repeated', async () => {
  const { snapshot } = generateSnapshot({ buckets: 3, objectsPerBucket: 1 })
  const set = new MetricSet(catalogue)
  set.attach(await new UsageExposition('objstore').blockFor(snapshot))
  set.set('source_up', { source: 's3' }, 1)
  assert.throws(() => renderScrape(set, 'objstore'), /source_up/)
})

test('a snapshot is rendered once, and a new snapshot anew', async () => {
  const exposition = new UsageExposition('objstore')
  const first = generateSnapshot({ buckets: ['alpha', 'bravo'], objectsPerBucket: 3 }).snapshot
  const second = generateSnapshot({ buckets: ['bravo', 'charlie'], objectsPerBucket: 3 }).snapshot
  const block = await exposition.blockFor(first)
  assert.equal(await exposition.blockFor(first), block)
  const next = await blockText(await exposition.blockFor(second), 'text')
  assert.match(next, /bucket="charlie"/)
  assert.doesNotMatch(next, /bucket="alpha"/)
})

test('the text is inflated again, identical, whether held, replaced or read from a retired block', async () => {
  const exposition = new UsageExposition('objstore')
  const expected = snapshotText
  const first = generateSnapshot({ buckets: manyNames(300), objectsPerBucket: 6 }).snapshot
  const block = await exposition.blockFor(first)
  assert.ok((await block.deflated('text')).length > 60, 'large families span several chunks')
  // Twice per format: inflated into the held text, then read from it.
  for (const format of [...FORMATS, ...FORMATS]) {
    assert.equal(await blockText(block, format), expected(first, format), format)
    assert.equal(block.byteLength(format), Buffer.byteLength(expected(first, format)), format)
  }
  // A new snapshot retires the first block: its readers inflate segment by segment, same text.
  const second = generateSnapshot({ buckets: manyNames(400), objectsPerBucket: 4, seed: 2 }).snapshot
  const next = await exposition.blockFor(second)
  assert.equal(await blockText(next, 'openmetrics'), expected(second, 'openmetrics'))
  for (const format of FORMATS) assert.equal(await blockText(block, format), expected(first, format), format)
})

test('CRC-32 of two parts combines into the CRC-32 of the whole, whatever the split', () => {
  const data = randomBytes(200_000)
  for (const split of [0, 1, 7, 4096, 65_537, 199_999, 200_000]) {
    const [a, b] = [data.subarray(0, split), data.subarray(split)]
    assert.equal(crc32Combine(crc32(a), crc32(b), b.length), crc32(data), `split at ${split}`)
  }
})

test('segments compressed apart join into one gzip member, empty ones included', async () => {
  const parts = ['# HELP a\n', '', 'x'.repeat(300_000), 'ü 😀\n'].map((text) => Buffer.from(text, 'utf8'))
  const segments = await Promise.all(parts.map((part) => deflateSegment(part)))
  const body = Buffer.concat(gzipMember(segments))
  assert.equal(singleMemberText(body), Buffer.concat(parts).toString('utf8'))
})

test('while a new snapshot renders, scrapes are served the last rendered one, whole, then the new one', async (t) => {
  const exposition = new UsageExposition('objstore')
  t.after(() => exposition.close())
  const first = generateSnapshot({ buckets: manyNames(300), objectsPerBucket: 3, seed: 1 }).snapshot
  const second = generateSnapshot({ buckets: manyNames(320), objectsPerBucket: 3, seed: 2 }).snapshot
  // Nothing rendered yet: the first scrape waits for its snapshot, however long that takes.
  const initial = await exposition.served(first, 0)
  assert.equal(initial.snapshot, first)
  // The second renders on a worker (over 200 buckets): a scrape that cannot wait gets the first.
  const meanwhile = await exposition.served(second, 0)
  assert.equal(meanwhile.snapshot, first)
  assert.equal(meanwhile.block, initial.block)
  assert.equal(await blockText(meanwhile.block, 'text'), snapshotText(first, 'text'), 'the first, whole')
  // A scrape that can wait long enough gets the second, and from then on every scrape does.
  const waited = await exposition.served(second, 60_000)
  assert.equal(waited.snapshot, second)
  assert.equal(await blockText(waited.block, 'text'), snapshotText(second, 'text'))
  assert.equal((await exposition.served(second, 0)).snapshot, second)
})

test('the usage collector serves the age of the snapshot whose block it serves', async (t) => {
  const exposition = new UsageExposition('objstore')
  t.after(() => exposition.close())
  const first = generateSnapshot({
    buckets: manyNames(250),
    objectsPerBucket: 2,
    completedAtMs: 1_000_000,
  }).snapshot
  const second = generateSnapshot({
    buckets: manyNames(250),
    objectsPerBucket: 2,
    completedAtMs: 1_500_000,
  }).snapshot
  let latest = first
  // No grace: a scrape never waits for a rendering when an earlier block is ready.
  const collector = createUsageCollector({
    snapshot: () => latest,
    exposition,
    now: () => 2_000_000,
    graceMs: 0,
  })
  const scrape = async () => {
    const set = new MetricSet(collector.families)
    await collector.collect(set, new AbortController().signal)
    return { age: set.samples('usage_snapshot_age_seconds')[0]?.value, block: set.blocks[0] }
  }
  const served = await scrape()
  assert.equal(served.age, 1000)
  latest = second
  const during = await scrape()
  assert.deepEqual(during, served, "the first snapshot's block and age while the second renders")
  await exposition.blockFor(second)
  const after = await scrape()
  assert.equal(after.age, 500)
  assert.notEqual(after.block, served.block)
})
