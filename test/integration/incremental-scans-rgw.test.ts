import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { assertSameMeasure } from '../support/listing-comparison.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { inParallel, MiB, rgwS3Client, rgwSourceEnv, ScenarioWriter } from '../support/rgw-scenario.js'

/**
 * Incremental scans (issue 25) of a versioned bucket on Ceph RGW, with SCAN_VERSIONS: after a new
 * version, a delete (a delete marker), a delete marker on a key never written and a multipart
 * completion, with the changed keys marked, the round that lists the dirty ranges again measures
 * what a full listing (SCAN_FULL_EVERY=1) does, every field and family. Ranges are cut in pieces of
 * 300 entries while every 40th key holds thirteen versions, so pieces end inside page histories.
 */

let cluster: RgwCluster
let writer: ScenarioWriter

before(async () => {
  cluster = await startRgwCluster()
  writer = new ScenarioWriter(rgwS3Client(cluster))
  await writer.createBucket('history', { versioned: true })
  const keys = Array.from({ length: 1_500 }, (_, index) => `obj-${String(index).padStart(5, '0')}`)
  await inParallel(keys, 8, async (key) => {
    const index = Number(key.slice(-5))
    const versions = index % 40 === 0 ? 13 : 1
    for (let version = 0; version < versions; version++)
      await writer.put('history', key, ((index + 1) * 131 * (version + 1)) % 70_000)
    if (index % 97 === 0) await writer.delete('history', key)
  })
})

after(async () => {
  writer?.s3.destroy()
  await cluster?.stop()
})

const SETTINGS = {
  SCAN_VERSIONS: 'true',
  BUCKET_METRICS: 'all',
  SCAN_CONCURRENCY: '4',
  S3_LIST_RANGES: '4',
  SCAN_SUBTOTALS_MIN_OBJECTS: '1000',
  SCAN_RANGE_MAX_OBJECTS: '600',
}

async function round(exporter: RunningExporter): Promise<{ snapshot: UsageSnapshot; pages: number }> {
  const { scanner } = exporter.exporter
  if (scanner.nextScanAtMs === undefined) await scanner.scanNow()
  const snapshot = await scanner.scanNow()
  return { snapshot, pages: scanner.lastScanListingPages?.get('ListObjectVersions') ?? 0 }
}

async function fullListing() {
  const exporter = await startExporter(rgwSourceEnv(cluster, 's3', { ...SETTINGS, SCAN_FULL_EVERY: '1' }))
  try {
    return { snapshot: await exporter.exporter.scanner.firstSnapshot(), scrape: await exporter.scrape() }
  } finally {
    await exporter.close()
  }
}

test('versions, delete markers and a multipart completion, marked: the dirty ranges give a full listing', async () => {
  const exporter = await startExporter(rgwSourceEnv(cluster, 's3', { ...SETTINGS, SCAN_FULL_EVERY: '1000' }))
  try {
    await exporter.exporter.scanner.firstSnapshot()
    const first = await round(exporter)
    assert.ok(
      (first.snapshot.buckets[0]?.ranges?.ranges ?? 0) >= 4,
      JSON.stringify(first.snapshot.buckets[0]?.ranges),
    )
    assertSameMeasure(await fullListing(), { snapshot: first.snapshot, scrape: await exporter.scrape() })

    const changed = ['obj-00400', 'obj-00401', 'obj-00402', 'obj-00403-gone', 'obj-00404-multipart']
    await writer.put('history', 'obj-00400', 4_242) // a new version of a key with thirteen
    await writer.delete('history', 'obj-00401') // a delete marker
    await writer.put('history', 'obj-00402', 17) // an overwrite: a noncurrent version
    await writer.delete('history', 'obj-00403-gone') // a marker on a key never written
    await writer.multipart('history', 'obj-00404-multipart', [5 * MiB, 1_000], true)
    const unmarked = await round(exporter)
    assert.equal(unmarked.pages, 0, 'unmarked, nothing is listed')
    for (const key of changed) exporter.exporter.scanner.keyChanges.markChanged('history', key)
    const marked = await round(exporter)
    assert.ok(marked.pages > 0 && marked.pages < first.pages, `${marked.pages} pages against ${first.pages}`)
    assertSameMeasure(await fullListing(), { snapshot: marked.snapshot, scrape: await exporter.scrape() })
  } finally {
    await exporter.close()
  }
})
