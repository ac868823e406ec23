import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CreateBucketCommand, PutBucketNotificationConfigurationCommand } from '@aws-sdk/client-s3'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { subtotalsOf } from '../../src/snapshot/stored-records.js'
import { rangeHolding } from '../../src/sources/s3/key-ranges.js'
import { rangeEnds } from '../../src/sources/subtotals.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { versionedRows, writeInventory } from '../support/inventory.js'
import { assertOnlyChangedRanges, inventoryComparable } from '../support/listing-comparison.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { inParallel, rgwS3Client, rgwSourceEnv, ScenarioWriter } from '../support/rgw-scenario.js'
import { createPushTopic } from '../support/rgw-topics.js'
import { type S3Gate, startS3Gate } from '../support/s3-gate.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Issue 27's versions where a real store keeps them, folded into incremental-scan ranges (issue
 * 25), on Ceph RGW: a versioned bucket of 1,200 keys (overwrites, deletes, keys whose only entry is
 * a delete marker) and its inventory of every version, written as CSV gzip and as Parquet from
 * what RGW lists, served from a destination bucket on RGW. With SCAN_VERSIONS and subtotals on,
 * the bucket is measured from the inventory and its ranges cut from the inventory's rows with no
 * LIST request to it; every family equals a plain listing. Versions written after the inventory,
 * their keys marked (by the scanner's own key changes, or by RGW pushing to POST /events), are
 * listed again with ListObjectVersions only in the ranges they landed in, and the families equal
 * a plain listing of the bucket as it is now.
 */

const BUCKET = 'history'
const DEST = 'inventories'
const EVENTS_TOKEN = 'inventory-ranges-rgw-3f1c7d20'

let cluster: RgwCluster
let writer: ScenarioWriter
let gate: S3Gate

before(async () => {
  // A synchronous topic holds the S3 call while the receiver is slow: bound it (300 s by default).
  cluster = await startRgwCluster({ rgwSettings: { 'rgw curl low speed time': '5' } })
  writer = new ScenarioWriter(rgwS3Client(cluster))
  await writer.createBucket(BUCKET, { versioned: true })
  const keys = Array.from(
    { length: 1_200 },
    (_, index) => `t${index % 4}/obj-${String(index).padStart(5, '0')}`,
  )
  await inParallel(keys, 8, async (key) => {
    const index = Number(key.slice(-5))
    // Every 10th key overwritten three times: noncurrent versions.
    const versions = index % 10 === 0 ? 4 : 1
    for (let version = 0; version < versions; version++)
      await writer.put(BUCKET, key, ((index + 1) * 131 * (version + 1)) % 70_000)
    if (index % 50 === 3) await writer.delete(BUCKET, key)
  })
  // Keys whose only entry is a delete marker (deleted without ever being written).
  for (let index = 0; index < 10; index++) await writer.delete(BUCKET, `t${index % 4}/gone-${index}`)
  await writer.s3.send(new CreateBucketCommand({ Bucket: DEST }))
  gate = await startS3Gate(Number(new URL(cluster.endpoint).port))
})

after(async () => {
  await gate?.close()
  writer?.s3.destroy()
  await cluster?.stop()
})

/** Ranges of about 200 versions and markers: 8 or so for the bucket's 1,600. */
const SETTINGS = {
  BUCKETS: BUCKET,
  SCAN_VERSIONS: 'true',
  BUCKET_METRICS: 'all',
  PREFIX_DEPTH: '1',
  SCAN_SUBTOTALS_MIN_OBJECTS: '1000',
  SCAN_RANGE_MAX_OBJECTS: '400',
}

const listRequests = (seen: S3Gate['seen']) =>
  seen.filter((request) => request.bucket === BUCKET && request.operation.startsWith('List'))

/** A round, and the LIST requests it sent to the bucket itself (not the destination). */
async function round(exporter: RunningExporter) {
  const { scanner } = exporter.exporter
  if (scanner.nextScanAtMs === undefined) await scanner.scanNow()
  const from = gate.seen.length
  const snapshot = await scanner.scanNow()
  return { snapshot, seen: listRequests(gate.seen.slice(from)) }
}

const figures = (snapshot: UsageSnapshot, scrape: ParsedExposition) =>
  inventoryComparable(snapshot, scrape, BUCKET)

/** What an exporter listing every version of the bucket whole, without an inventory, measures now. */
async function plainListing() {
  const exporter = await startExporter(rgwSourceEnv(cluster, 's3', { ...SETTINGS, SCAN_FULL_EVERY: '1' }))
  try {
    return figures(await exporter.exporter.scanner.firstSnapshot(), await exporter.scrape())
  } finally {
    await exporter.close()
  }
}

/** How the changed keys reach the exporter: marked in the scanner, or pushed by RGW to POST /events. */
type Marking = 'scanner' | 'events'

async function markedThrough(exporter: RunningExporter, marking: Marking, name: string) {
  if (marking === 'scanner') return
  const topicArn = await createPushTopic(cluster, name, `${exporter.baseUrl}/events?token=${EVENTS_TOKEN}`)
  await writer.s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: BUCKET,
      NotificationConfiguration: {
        TopicConfigurations: [
          { Id: name, TopicArn: topicArn, Events: ['s3:ObjectCreated:*', 's3:ObjectRemoved:*'] },
        ],
      },
    }),
  )
}

const CASES = [
  { format: 'CSV', marking: 'scanner', team: 1, stamp: '2026-12-05T01-00Z' },
  { format: 'Parquet', marking: 'events', team: 2, stamp: '2026-12-05T02-00Z' },
] as const

for (const { format, marking, team, stamp } of CASES) {
  test(`${format}, marked by the ${marking}: ranges from the inventory, only the changed ones listed again`, async (t) => {
    const rows = await versionedRows(writer.s3, BUCKET)
    const createdMs = Date.now()
    const prefix = `${format.toLowerCase()}-reports`
    await writeInventory({
      client: writer.s3,
      destination: DEST,
      prefix,
      bucket: BUCKET,
      configuration: 'all-versions',
      stamp,
      format,
      rows,
      perFile: 500,
      versions: true,
      createdMs,
    })
    const exporter = await startExporter(
      rgwSourceEnv({ ...cluster, endpoint: gate.endpoint }, 's3', {
        ...SETTINGS,
        S3_INVENTORY_DESTINATION: `${DEST}/${prefix}`,
        ...(marking === 'events' ? { EVENTS_AUTH_TOKEN: EVENTS_TOKEN } : {}),
      }),
    )
    try {
      const { scanner } = exporter.exporter
      const from = gate.seen.length
      const whole = await scanner.firstSnapshot()
      assert.equal(whole.buckets[0]?.usage?.inventory?.rows, rows.length, 'measured from its inventory')
      assert.deepEqual(listRequests(gate.seen.slice(from)), [], 'no LIST request to the bucket')

      const cut = await round(exporter)
      const ranges = subtotalsOf(cut.snapshot.buckets[0])
      assert.equal(ranges?.listing, 'versions')
      assert.ok(
        ranges && ranges.subtotals.length >= 6,
        `${ranges?.subtotals.length} ranges cut from the inventory`,
      )
      assert.deepEqual(cut.seen, [], 'the ranges come from the inventory: no LIST request')
      assert.equal(
        ranges.subtotals.reduce((sum, subtotal) => sum + subtotal.entries, 0),
        rows.length,
        'every version and marker in one range',
      )
      assert.deepStrictEqual(
        figures(cut.snapshot, await exporter.scrape()),
        await plainListing(),
        'the ranges merged are a listing of every version',
      )

      // Versions after the inventory's time, in two neighbourhoods of one team's keys.
      await markedThrough(exporter, marking, `inventory-${format.toLowerCase()}`)
      const key = (index: number) => `t${team}/obj-${String(index).padStart(5, '0')}`
      const changed = [
        key(team + 100), // a new version: the old one noncurrent
        key(team + 104), // a delete marker on a current object
        `${key(team + 104)}-new`, // a key first written now
        key(team + 900), // a new version
        `${key(team + 900)}-gone`, // a delete marker on a key never written
      ]
      await writer.put(BUCKET, changed[0] as string, 4_242)
      await writer.delete(BUCKET, changed[1] as string)
      await writer.put(BUCKET, changed[2] as string, 77)
      await writer.put(BUCKET, changed[3] as string, 9_000)
      await writer.delete(BUCKET, changed[4] as string)
      if (marking === 'scanner') for (const key of changed) scanner.keyChanges.markChanged(BUCKET, key)
      else
        await waitFor(
          'the events applied',
          async () =>
            sampleValue(await exporter.scrape(), 'objstore_events_applied_total') === changed.length,
          { timeoutMs: 30_000, intervalMs: 50 },
        )
      const throughs = rangeEnds(ranges.subtotals)
      const marked = await round(exporter)
      const dirty = assertOnlyChangedRanges(marked.seen, BUCKET, 'ListObjectVersions', throughs, changed)
      const after = subtotalsOf(marked.snapshot.buckets[0])
      assert.ok(after)
      assert.deepEqual(rangeEnds(after.subtotals), throughs, 'the ranges keep their ends')
      assert.equal(after.relistedRanges, dirty.size, 'ranges listed again')
      // Each range counts what it holds now: a range's last page runs past its end.
      const held = after.subtotals.map(() => 0)
      for (const row of await versionedRows(writer.s3, BUCKET)) {
        const index = rangeHolding(throughs, row.key)
        held[index] = (held[index] ?? 0) + 1
      }
      assert.deepEqual(
        after.subtotals.map((subtotal) => subtotal.entries),
        held,
        'each range counts the versions and markers it holds',
      )
      const relisted = [...dirty].reduce((sum, index) => sum + (held[index] ?? 0), 0)
      assert.equal(
        marked.snapshot.buckets[0]?.ranges?.relistedRatio,
        relisted / held.reduce((sum, entries) => sum + entries, 0),
        'the share listed again',
      )
      assert.ok(
        dirty.size < ranges.subtotals.length / 2,
        `${dirty.size} of ${ranges.subtotals.length} ranges`,
      )
      t.diagnostic(
        `${rows.length} rows; ${ranges.subtotals.length} ranges; ${dirty.size} listed again in ${marked.seen.length} requests; share ${marked.snapshot.buckets[0]?.ranges?.relistedRatio}`,
      )
      assert.deepStrictEqual(
        figures(marked.snapshot, await exporter.scrape()),
        await plainListing(),
        'a listing of every version now',
      )
      assert.equal(marked.snapshot.buckets[0]?.ranges?.dirty, 0)
    } finally {
      await exporter.close()
    }
  })
}
