import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'
import {
  assertPrefixRows,
  expectedPrefixRows,
  type KeyedObject,
  scrapedPrefixRows,
} from '../support/prefix-expectations.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { bytePath, scratchFolder } from '../support/scratch.js'

/**
 * "Where the bytes went" (issue 14): bytes and objects per prefix in real scrapes, from a real fs
 * walk on worker threads (parts merged) and from a real S3 server's paged listing, checked against
 * figures computed from the keys written (test/support/prefix-expectations.ts).
 */

async function writeObjects(root: string, objects: readonly KeyedObject[]): Promise<void> {
  for (const { key, size } of objects) {
    const path = join(root, key)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, Buffer.alloc(size))
  }
}

/** Top-level files, a dozen folders two levels deep, a folder whose name needs escaping. */
function treeObjects(): KeyedObject[] {
  const objects: KeyedObject[] = [
    { key: 'top-a', size: 10 },
    { key: 'top-b', size: 20 },
    { key: 'we "odd"\\ one/x', size: 3_333 },
  ]
  for (let folder = 0; folder < 12; folder++) {
    for (let sub = 0; sub < 3; sub++) {
      for (let file = 0; file < 4; file++) {
        objects.push({
          key: `d${folder}/s${sub}/f${file}`,
          size: ((folder * 7 + sub * 3 + file) * 389) % 5_000,
        })
      }
    }
  }
  objects.push({ key: 'd3/shallow', size: 4_000 })
  return objects
}

test('fs: exact bytes and objects per folder at depth 1 and 2, top K and _other, in real scrapes', async (t) => {
  const folder = await scratchFolder(t, 'objstore-prefixes-fs-')
  const data = join(folder, 'data')
  const tree = treeObjects()
  await writeObjects(join(data, 'tree'), tree)
  // A folder name that is not UTF-8: labelled with the bucket label's escapes.
  await mkdir(bytePath(data, 'tree', [0x66, 0xff]))
  await writeFile(bytePath(data, 'tree', [0x66, 0xff], 'raw'), Buffer.alloc(4_500))
  const expectedTree = [...tree, { key: 'f\\xff/raw', size: 4_500 }]
  // A folder name longer than a prefix label: cut, with the marker.
  await writeObjects(join(data, 'long'), [{ key: `${'L'.repeat(200)}/x`, size: 7 }])

  const depth1 = await startExporter({
    BUCKET_METRICS: 'all',
    DATA_DIR: data,
    SCAN_CONCURRENCY: '3',
    PREFIX_TOP_K: '5',
  })
  t.after(() => depth1.close())
  const first = await depth1.scrape()
  assertPrefixRows(first, 'tree', expectedTree, { depth: 1, delimiter: '/', topK: 5 })
  assert.equal(sampleValue(first, 'objstore_bucket_prefix_truncated', { bucket: 'tree' }), 1)
  const bytes = sampleValue(first, 'objstore_bucket_usage_total_bytes', { bucket: 'tree' })
  const rows = [...scrapedPrefixRows(first, 'tree').values()]
  assert.equal(
    rows.reduce((sum, row) => sum + row.bytes, 0),
    bytes,
    'rows and _other sum to the bucket',
  )
  assert.deepEqual(Object.fromEntries(scrapedPrefixRows(first, 'long')), {
    [`${'L'.repeat(127)}…`]: { bytes: 7, objects: 1 },
  })
  await depth1.close()

  const depth2 = await startExporter({
    BUCKET_METRICS: 'all',
    DATA_DIR: data,
    SCAN_CONCURRENCY: '3',
    PREFIX_DEPTH: '2',
    PREFIX_TOP_K: '100',
  })
  t.after(() => depth2.close())
  const second = await depth2.scrape()
  assertPrefixRows(second, 'tree', expectedTree, { depth: 2, delimiter: '/', topK: 100 })
  assert.equal(
    findSamples(second, 'objstore_bucket_prefix_usage_total_bytes', { prefix: '_other' }).length,
    0,
  )
  await depth2.close()

  const off = await startExporter({
    BUCKET_METRICS: 'all',
    DATA_DIR: data,
    PREFIX_DEPTH: '0',
  })
  t.after(() => off.close())
  const none = await off.scrape()
  assert.equal(
    none.samples.filter((sample) => sample.name.includes('_prefix_')).length,
    0,
    'PREFIX_DEPTH=0: off',
  )
})

test('fs: more folders than the sketch tracks: estimates within the stated bound, merged across threads', async (t) => {
  const folder = await scratchFolder(t, 'objstore-prefixes-wide-')
  const data = join(folder, 'data')
  const objects: KeyedObject[] = [
    { key: 'heavy/a', size: 300_000 },
    { key: 'heavy/b/c', size: 200_000 },
  ]
  for (let index = 0; index < 60; index++) {
    objects.push(
      { key: `w${index}/one`, size: (index + 1) * 600 },
      { key: `w${index}/two`, size: (index + 1) * 400 },
    )
  }
  await writeObjects(join(data, 'wide'), objects)
  // PREFIX_TOP_K=1: 8 prefixes tracked, 61 distinct.
  const exporter = await startExporter({
    BUCKET_METRICS: 'all',
    DATA_DIR: data,
    SCAN_CONCURRENCY: '4',
    PREFIX_TOP_K: '1',
  })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  const bucket = { bucket: 'wide' }
  const total = objects.reduce((sum, object) => sum + object.size, 0)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', bucket), total)
  const error = sampleValue(scrape, 'objstore_bucket_prefix_error_bytes', bucket)
  assert.ok(error > 0 && error <= total / 8, `error ${error} within bytes / capacity ${total / 8}`)
  assert.equal(sampleValue(scrape, 'objstore_bucket_prefix_truncated', bucket), 1)
  const rows = scrapedPrefixRows(scrape, 'wide')
  assert.deepEqual([...rows.keys()], ['heavy/', '_other'])
  const heavy = rows.get('heavy/') as { bytes: number; objects: number }
  assert.ok(
    heavy.bytes >= 500_000 && heavy.bytes <= 500_000 + error,
    `heavy/ ${heavy.bytes} within the bound`,
  )
  assert.ok(heavy.objects <= 2)
  assert.equal(heavy.bytes + (rows.get('_other')?.bytes ?? Number.NaN), total)
  assert.equal(heavy.objects + (rows.get('_other')?.objects ?? Number.NaN), objects.length)
})

s3PrefixTests()

/** s3rver: nested keys over more than one listing page, at two depths; promtool lints the scrape. */
function s3PrefixTests(): void {
  let s3: S3rverProcess
  const nested: KeyedObject[] = Array.from({ length: 1_100 }, (_, index) => ({
    key:
      index % 50 === 49
        ? `loose-${index}.txt`
        : `proj-${index % 11}/run-${index % 7}/part-${String(index).padStart(4, '0')}`,
    size: (index * 131) % 9_000,
  }))

  before(async () => {
    s3 = await startS3rver()
    await fillBucket(s3.client, 'nested', nested)
  })
  after(async () => {
    await s3?.stop()
  })

  for (const [depth, topK] of [
    [1, 4],
    [2, 12],
  ] as const) {
    test(`s3: bytes per key prefix at depth ${depth}, top ${topK}, over listing pages`, async (t) => {
      const exporter = await startExporter({
        BUCKET_METRICS: 'all',
        ...s3.exporterEnv,
        PREFIX_DEPTH: String(depth),
        PREFIX_TOP_K: String(topK),
      })
      t.after(() => exporter.close())
      const scrape = await exporter.scrape()
      assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'nested' }), nested.length)
      assertPrefixRows(scrape, 'nested', nested, { depth, delimiter: '/', topK })
      assert.equal(expectedPrefixRows(nested, { depth, delimiter: '/', topK }).truncated, true)
      const skip = promtoolSkipReason()
      if (skip) return t.skip(skip)
      const text = await (await fetch(`${exporter.baseUrl}/metrics`)).text()
      assert.equal(promtoolCheckMetrics(text), '')
    })
  }
}
