import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3'
import { startExporter } from '../support/exporter.js'
import { type InventoryRowSpec, versionedRows, writeInventory } from '../support/inventory.js'
import { usageLines } from '../support/listing-comparison.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { inParallel, rgwS3Client, rgwSourceEnv, ScenarioWriter } from '../support/rgw-scenario.js'

/**
 * Versions where a real store keeps them (issue 27): a versioned bucket on Ceph RGW (overwrites,
 * deletes, keys whose only entry is a delete marker), its inventory of every version written as
 * CSV gzip and Parquet from what RGW lists, served from a destination bucket on RGW. With
 * SCAN_VERSIONS=true the exporter reading the inventory exports every family the one listing
 * versions does: versions, delete markers, expired delete markers, noncurrent bytes and ages.
 */

let cluster: RgwCluster
let client: S3Client
let rows: InventoryRowSpec[] = []
const DEST = 'inventories'

before(async () => {
  cluster = await startRgwCluster()
  client = rgwS3Client(cluster)
  const writer = new ScenarioWriter(client)
  await writer.createBucket('history', { versioned: true })
  const keys = Array.from(
    { length: 150 },
    (_, index) => `team-${index % 3}/obj-${String(index).padStart(4, '0')}`,
  )
  await inParallel(keys, 8, async (key) => {
    const index = Number(key.slice(-4))
    for (let version = 0; version < 1 + (index % 4); version++) {
      await writer.put('history', key, ((index + 1) * 131 * (version + 1)) % 70_000)
    }
    if (index % 7 === 0) await writer.delete('history', key)
  })
  for (let index = 0; index < 5; index++) await writer.delete('history', `team-${index % 3}/gone-${index}`)
  await client.send(new CreateBucketCommand({ Bucket: DEST }))
  rows = await versionedRows(client, 'history')
})

after(async () => {
  client?.destroy()
  await cluster?.stop()
})

const ENV = { SCAN_VERSIONS: 'true', BUCKET_METRICS: 'all', PREFIX_DEPTH: '2', BUCKETS: 'history' }

async function measure(extra: Record<string, string>) {
  const exporter = await startExporter(rgwSourceEnv(cluster, 's3', { ...ENV, ...extra }))
  try {
    const snapshot = await exporter.exporter.scanner.firstSnapshot()
    return { snapshot, scrape: await exporter.scrape() }
  } finally {
    await exporter.close()
  }
}

const compared = (lines: string[]) =>
  lines.filter(
    (line) => !line.startsWith('objstore_bucket_inventory_') && !line.startsWith('objstore_bucket_multipart'),
  )

for (const format of ['CSV', 'Parquet'] as const) {
  test(`${format}: an inventory of every version gives what ListObjectVersions gives`, async () => {
    const prefix = `${format.toLowerCase()}-reports`
    await writeInventory({
      client,
      destination: DEST,
      prefix,
      bucket: 'history',
      configuration: 'all-versions',
      stamp: '2026-12-04T01-00Z',
      format,
      rows,
      perFile: 70,
      versions: true,
      createdMs: Date.now() - 1_000,
    })
    const listing = await measure({})
    const reading = await measure({ S3_INVENTORY_DESTINATION: `${DEST}/${prefix}` })
    const [read] = reading.snapshot.buckets
    const [listed] = listing.snapshot.buckets
    assert.ok(read?.scanSuccess && listed?.scanSuccess)
    assert.equal(read?.usage?.inventory?.rows, rows.length)
    assert.ok((listed?.usage?.versions?.expiredDeleteMarkers ?? 0) >= 5)
    const { inventory: _inventory, multipart: _none, ...fromInventory } = read?.usage ?? {}
    const { multipart: _uploads, ...fromListing } = listed?.usage ?? {}
    assert.deepStrictEqual(fromInventory, fromListing)
    const lines = compared(usageLines(listing.scrape))
    assert.ok(lines.length > 100, `${lines.length} samples compared`)
    assert.deepStrictEqual(compared(usageLines(reading.scrape)), lines)
  })
}
