import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { CreateBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { subtotalsOf } from '../../src/snapshot/stored-records.js'
import { rangeEnds } from '../../src/sources/subtotals.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import type { ParsedExposition } from '../support/exposition.js'
import { listedRows, writeInventory } from '../support/inventory.js'
import { assertOnlyChangedRanges, inventoryComparable } from '../support/listing-comparison.js'
import { type S3Gate, startS3Gate } from '../support/s3-gate.js'
import { fillBucket, putObjects, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'

/**
 * An S3 Inventory and change events combined (issues 27 and 25), on a real S3 server: a bucket
 * above SCAN_SUBTOTALS_MIN_OBJECTS measured from its inventory gets key ranges cut from the
 * inventory's rows, with no LIST request to the bucket; after puts, an overwrite and a delete,
 * with their keys marked, the next round lists again only the ranges holding them, and the
 * figures equal a full listing of the bucket as it is now. A newer inventory made before those
 * changes replaces the ranges it is newer than and keeps the ones listed since.
 */

let s3: S3rverProcess
let gate: S3Gate
const BUCKET = 'combined'
const DEST = 'inventories'
const KEYS = Array.from({ length: 2_400 }, (_, index) => ({
  key: `obj-${String(index).padStart(6, '0')}`,
  size: index % 89 === 0 ? 1_300_000 + index : (index * 53) % 4_000,
}))

/** Ranges of about 300 keys: 8 for the bucket. */
const SETTINGS = {
  BUCKETS: BUCKET,
  SCAN_SUBTOTALS_MIN_OBJECTS: '1000',
  SCAN_RANGE_MAX_OBJECTS: '600',
  SCAN_INTERVAL_SECONDS: '3600',
  BUCKET_METRICS: 'all',
  PREFIX_DEPTH: '1',
}

before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, BUCKET, KEYS)
  await s3.client.send(new CreateBucketCommand({ Bucket: DEST }))
  gate = await startS3Gate(s3.port)
})

after(async () => {
  await gate?.close()
  await s3?.stop()
})

async function inventory(
  stamp: string,
  createdMs: number,
  rows: Awaited<ReturnType<typeof listedRows>>,
  prefix = 'reports',
) {
  await writeInventory({
    client: s3.client,
    destination: DEST,
    prefix,
    bucket: BUCKET,
    configuration: 'daily',
    stamp,
    format: 'CSV',
    rows,
    perFile: 500,
    createdMs,
  })
}

/** A round, and the requests it sent to the bucket itself (not the destination). */
async function round(exporter: RunningExporter) {
  const { scanner } = exporter.exporter
  if (scanner.nextScanAtMs === undefined) await scanner.scanNow()
  const from = gate.seen.length
  const snapshot = await scanner.scanNow()
  const seen = gate.seen.slice(from).filter((request) => request.bucket === BUCKET)
  return { snapshot, seen }
}

const figures = (snapshot: UsageSnapshot, scrape: ParsedExposition) =>
  inventoryComparable(snapshot, scrape, BUCKET)

/** What an exporter listing the bucket whole, without its inventory, measures now. */
async function fullListing() {
  const exporter = await startExporter({ ...s3.exporterEnv, ...SETTINGS, SCAN_FULL_EVERY: '1' })
  try {
    return figures(await exporter.exporter.scanner.firstSnapshot(), await exporter.scrape())
  } finally {
    await exporter.close()
  }
}

test('events after the inventory mark ranges: only those are listed, and the figures are a full listing', async () => {
  const original = await listedRows(s3.client, BUCKET)
  const firstMade = Date.now() - 120_000
  await inventory('2026-12-04T01-00Z', firstMade, original)
  const exporter = await startExporter({
    ...s3.exporterEnv,
    ...SETTINGS,
    S3_ENDPOINT: gate.endpoint,
    S3_INVENTORY_DESTINATION: `${DEST}/reports`,
  })
  try {
    const whole = await exporter.exporter.scanner.firstSnapshot()
    assert.equal(whole.buckets[0]?.usage?.inventory?.rows, KEYS.length, 'measured whole from its inventory')
    const cut = await round(exporter)
    const ranges = subtotalsOf(cut.snapshot.buckets[0])
    assert.ok(
      ranges && ranges.subtotals.length >= 4,
      `${ranges?.subtotals.length} ranges cut from the inventory`,
    )
    assert.deepEqual(cut.seen, [], 'no request to the bucket: the ranges come from the inventory')
    assert.equal(cut.snapshot.buckets[0]?.lastSuccessSeconds, firstMade / 1000)
    assert.deepStrictEqual(
      figures(cut.snapshot, await exporter.scrape()),
      await fullListing(),
      'the ranges merged are the inventory',
    )
    const quiet = await round(exporter)
    assert.deepEqual(
      quiet.seen,
      [],
      'nothing marked: nothing listed (the next inventory refreshes the ranges)',
    )

    const beforeChanges = Date.now()
    const changed = ['obj-000400-new', 'obj-001900-new', 'obj-001000']
    await putObjects(s3.client, BUCKET, [
      { key: 'obj-000400-new', size: 4_321 },
      { key: 'obj-001900-new', size: 99 },
      { key: 'obj-001000', size: 2_000_000 }, // an overwrite
    ])
    await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'obj-002300' }))
    changed.push('obj-002300')
    for (const key of changed) exporter.exporter.scanner.keyChanges.markChanged(BUCKET, key)
    const marked = await round(exporter)
    assertOnlyChangedRanges(marked.seen, BUCKET, 'ListObjectsV2', rangeEnds(ranges.subtotals), changed)
    const now = await fullListing()
    assert.deepStrictEqual(figures(marked.snapshot, await exporter.scrape()), now, 'a full listing of now')
    assert.equal(marked.snapshot.buckets[0]?.ranges?.dirty, 0)

    // A newer inventory, made before the changes: the ranges listed since are newer and stay.
    await inventory('2026-12-04T02-00Z', beforeChanges, original)
    const newer = await round(exporter)
    assert.equal(newer.snapshot.buckets[0]?.lastSuccessSeconds, beforeChanges / 1000)
    assert.equal(newer.snapshot.buckets[0]?.usage?.inventory?.createdSeconds, beforeChanges / 1000)
    assert.deepEqual(newer.seen, [], 'no request to the bucket')
    assert.deepStrictEqual(
      figures(newer.snapshot, await exporter.scrape()),
      now,
      'still a full listing of now',
    )
  } finally {
    await exporter.close()
  }
})

test('a restart keeps the ranges from the inventory: the state file serves them, nothing is read again', async (t) => {
  const stateFile = join(await scratchFolder(t, 'objstore-inventory-ranges-'), 'state.json')
  await inventory('2026-12-04T01-00Z', Date.now() - 60_000, await listedRows(s3.client, BUCKET), 'restart')
  const env = {
    ...s3.exporterEnv,
    ...SETTINGS,
    S3_ENDPOINT: gate.endpoint,
    S3_INVENTORY_DESTINATION: `${DEST}/restart`,
    STATE_FILE: stateFile,
  }
  const first = await startExporter(env)
  let before: UsageSnapshot
  try {
    await first.exporter.scanner.firstSnapshot()
    await round(first)
    before = (await round(first)).snapshot
    assert.ok((subtotalsOf(before.buckets[0])?.subtotals.length ?? 0) >= 4, 'ranges from the inventory')
  } finally {
    await first.close()
  }
  const second = await startExporter(env)
  try {
    const loaded = await second.exporter.scanner.firstSnapshot()
    assert.equal(
      loaded.buckets[0]?.ranges?.ranges,
      before.buckets[0]?.ranges?.ranges,
      'served from the state file',
    )
    const from = gate.seen.length
    const next = await round(second)
    const dataFiles = gate.seen.slice(from).filter((request) => request.key?.includes('/data/'))
    assert.deepEqual(next.seen, [], 'no request to the bucket')
    assert.deepEqual(dataFiles, [], 'the inventory already folded is not read again')
    assert.deepStrictEqual(subtotalsOf(next.snapshot.buckets[0]), {
      ...subtotalsOf(before.buckets[0]),
      turn: (subtotalsOf(before.buckets[0])?.turn ?? 0) + 1,
    })
    assert.deepStrictEqual(next.snapshot.buckets[0]?.usage, before.buckets[0]?.usage)
  } finally {
    await second.close()
  }
})
