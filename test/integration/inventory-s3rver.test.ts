import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { CreateBucketCommand } from '@aws-sdk/client-s3'
import { startExporter } from '../support/exporter.js'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import {
  type InventoryRowSpec,
  type InventoryWrite,
  listedRows,
  writeInventory,
} from '../support/inventory.js'
import { usageLines } from '../support/listing-comparison.js'
import { startS3Gate } from '../support/s3-gate.js'
import { fillBucket, type ObjectSpec, type S3rverProcess, startS3rver } from '../support/s3rver.js'

/**
 * S3 Inventory as a source (issue 27): buckets put into a real S3 server, their inventories (CSV
 * gzip and Parquet, written from what the store lists) served from a destination bucket of the
 * same server; an exporter reading the inventories exports every family a listing exporter does,
 * equal, and the inventory's own families beside. A broken inventory keeps the bucket's last good
 * figures, fails it with its reason, and touches no other bucket.
 */

let s3: S3rverProcess
const DEST = 'inventories'
const BUCKETS = ['photos', 'plain-docs', 'second']

const sizeOf = (index: number) => (index % 41 === 0 ? 1_100_000 + index : (index * 37) % 3_000)
const PHOTOS: ObjectSpec[] = [
  { key: 'a key with spaces', size: 10 },
  { key: 'plus+sign/é.jpg', size: 0 },
  ...Array.from({ length: 240 }, (_, index) => ({
    key: `y${index % 4}/m${String(index % 12).padStart(2, '0')}/p${index}.jpg`,
    size: sizeOf(index),
    ...(index % 5 === 0 ? { storageClass: 'STANDARD_IA' as const } : {}),
  })),
]
const PLAIN: ObjectSpec[] = Array.from({ length: 90 }, (_, index) => ({
  key: `doc-${index}`,
  size: sizeOf(index * 3),
}))

const rows = new Map<string, InventoryRowSpec[]>()

/** 128 MiB of newlines gzipped: about 128 KiB, a thousand times smaller than what it inflates to. */
let bomb: Buffer | undefined
const gzipBomb = () => {
  bomb ??= gzipSync(Buffer.alloc(128 * 1024 * 1024, 10), { level: 9 })
  return bomb
}

before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, 'photos', PHOTOS)
  await fillBucket(s3.client, 'plain-docs', PLAIN)
  await fillBucket(s3.client, 'second', PLAIN.slice(0, 20))
  await s3.client.send(new CreateBucketCommand({ Bucket: DEST }))
  for (const bucket of BUCKETS) rows.set(bucket, await listedRows(s3.client, bucket))
})

after(async () => {
  await s3?.stop()
})

const COMMON = {
  SCAN_INTERVAL_SECONDS: '3600',
  BUCKET_METRICS: 'all',
  PREFIX_DEPTH: '2',
  BUCKETS: BUCKETS.join(','),
}

async function measure(extra: Record<string, string>) {
  const exporter = await startExporter({ ...s3.exporterEnv, ...COMMON, ...extra })
  return exporter
}

/** The usage lines, without the inventory's own families (a listing has none). */
function figures(scrape: ParsedExposition): string[] {
  return usageLines(scrape).filter((line) => !line.startsWith('objstore_bucket_inventory_'))
}

/** A daily inventory of `bucket` under `prefix` of the destination. */
const dailyInventory = (prefix: string, bucket: string, more: Partial<InventoryWrite>) =>
  writeInventory({
    client: s3.client,
    destination: DEST,
    prefix,
    bucket,
    configuration: 'daily',
    stamp: '2026-12-04T01-00Z',
    format: 'CSV',
    rows: rows.get(bucket) ?? [],
    ...more,
  })

async function inventoriesOf(prefix: string, format: 'CSV' | 'Parquet', createdMs: number) {
  for (const bucket of BUCKETS) await dailyInventory(prefix, bucket, { format, perFile: 100, createdMs })
}

for (const format of ['CSV', 'Parquet'] as const) {
  test(`${format} inventories give every figure a listing gives, as of their creation`, async () => {
    const prefix = `${format.toLowerCase()}-reports`
    const createdMs = Date.now() - 120_000
    await inventoriesOf(prefix, format, createdMs)
    const listing = await measure({})
    const listed = {
      snapshot: await listing.exporter.scanner.firstSnapshot(),
      scrape: await listing.scrape(),
    }
    await listing.close()
    const reading = await measure({ S3_INVENTORY_DESTINATION: `${DEST}/${prefix}` })
    try {
      const snapshot = await reading.exporter.scanner.firstSnapshot()
      const scrape = await reading.scrape()
      for (const record of snapshot.buckets) {
        assert.ok(record.scanSuccess, `${record.name} measured`)
        assert.equal(record.usage?.inventory?.format, format)
        assert.equal(record.usage?.inventory?.rows, rows.get(record.name)?.length)
        assert.equal(record.lastSuccessSeconds, createdMs / 1000, `${record.name}: as of the inventory`)
        const { inventory: _read, multipart: _uploads, ...read } = record.usage ?? {}
        const { multipart: _listedUploads, ...same } =
          listed.snapshot.buckets.find((other) => other.name === record.name)?.usage ?? {}
        assert.deepStrictEqual(read, same, `${record.name}: the record a listing gives`)
      }
      const inventoryLines = figures(scrape).filter((line) => !line.startsWith('objstore_bucket_multipart'))
      const listingLines = figures(listed.scrape).filter(
        (line) => !line.startsWith('objstore_bucket_multipart'),
      )
      assert.ok(listingLines.length > 100, `${listingLines.length} samples compared`)
      assert.deepStrictEqual(inventoryLines, listingLines)
      const info = scrape.samples.filter((sample) => sample.name === 'objstore_bucket_inventory_info')
      assert.deepEqual(
        info.map((sample) => sample.labels.bucket).sort(),
        [...BUCKETS].sort(),
        'each bucket says it was measured from an inventory',
      )
      assert.deepEqual(
        scrape.samples
          .filter((sample) => sample.name === 'objstore_bucket_scan_last_success_timestamp_seconds')
          .map((sample) => sample.value),
        BUCKETS.map(() => createdMs / 1000),
      )
    } finally {
      await reading.close()
    }
  })
}

/** Each way an inventory breaks, and the reason its bucket fails with. */
const BROKEN: readonly {
  name: string
  reason: RegExp
  damage?: (file: Buffer, index: number) => Buffer | undefined
  manifest?: Record<string, unknown>
  format?: 'CSV' | 'Parquet'
  listed?: boolean
}[] = [
  {
    name: 'missing file',
    reason: /destination answered.*NoSuchKey|part-1\.csv\.gz/,
    damage: (file, index) => (index === 1 ? undefined : file),
  },
  {
    name: 'MD5 mismatch',
    reason: /MD5 [0-9a-f]{32} does not match/,
    damage: (file) => {
      const copy = Buffer.from(file)
      copy[copy.length - 9] = (copy[copy.length - 9] ?? 0) ^ 1
      return copy
    },
  },
  {
    name: 'truncated file',
    reason: /part-0\.csv\.gz is \d+ bytes, manifest\.json says \d+/,
    damage: (file) => file.subarray(0, file.length - 20),
  },
  {
    name: 'truncated gzip',
    reason: /part-0\.csv\.gz: truncated gzip/,
    damage: (file) => file.subarray(0, file.length - 20),
    listed: true,
  },
  {
    name: 'unknown column',
    reason: /unknown column ..Colour/,
    manifest: { fileSchema: 'Bucket, Key, Size, LastModifiedDate, Colour, StorageClass' },
  },
  {
    // Good rows, then a second gzip member that inflates a thousandfold (a gzip bomb).
    name: 'gzip bomb',
    reason: /part-0\.csv\.gz inflates past \d+ bytes \(S3_INVENTORY_MAX_INFLATION 100 times its \d+\)/,
    damage: (file, index) => (index === 0 ? Buffer.concat([file, gzipBomb()]) : file),
    listed: true,
  },
  { name: 'ORC', reason: /fileFormat ORC cannot be read.*choose Parquet/, manifest: { fileFormat: 'ORC' } },
]

test('a broken inventory keeps the last good figures, fails its bucket with the reason, and nothing else', async () => {
  const prefix = 'broken-reports'
  await inventoriesOf(prefix, 'CSV', Date.now() - 300_000)
  const reading = await measure({ S3_INVENTORY_DESTINATION: `${DEST}/${prefix}` })
  try {
    const good = await reading.exporter.scanner.firstSnapshot()
    // The first scan may still be unwinding when its snapshot is out: scanNow would join it.
    await reading.exporter.scanner.scanNow()
    const goodPlain = good.buckets.find((record) => record.name === 'plain-docs')
    assert.ok(goodPlain?.scanSuccess)
    for (const [index, broken] of BROKEN.entries()) {
      await writeInventory({
        client: s3.client,
        destination: DEST,
        prefix,
        bucket: 'plain-docs',
        configuration: 'daily',
        stamp: `2026-12-04T0${index + 2}-00Z`,
        format: broken.format ?? 'CSV',
        rows: rows.get('plain-docs') ?? [],
        perFile: 30,
        ...(broken.damage ? { damage: broken.damage, damageListed: broken.listed ?? false } : {}),
        ...(broken.manifest ? { manifest: broken.manifest } : {}),
      })
      const snapshot = await reading.exporter.scanner.scanNow()
      const plain = snapshot.buckets.find((record) => record.name === 'plain-docs')
      assert.equal(plain?.scanSuccess, false, `${broken.name}: the bucket failed`)
      assert.deepStrictEqual(plain?.usage, goodPlain?.usage, `${broken.name}: its last good figures kept`)
      assert.equal(plain?.lastSuccessSeconds, goodPlain?.lastSuccessSeconds)
      for (const other of ['photos', 'second']) {
        assert.ok(
          snapshot.buckets.find((record) => record.name === other)?.scanSuccess,
          `${broken.name}: ${other} unaffected`,
        )
      }
      const logged = JSON.stringify(reading.logs.lines)
      assert.match(logged, broken.reason, `${broken.name}: the reason is said`)
    }
  } finally {
    await reading.close()
  }
})

test('a manifest already folded is not read again; a bucket without an inventory is listed, or skipped', async () => {
  const prefix = 'some-reports'
  // Only photos has an inventory under this prefix.
  await writeInventory({
    client: s3.client,
    destination: DEST,
    prefix,
    bucket: 'photos',
    configuration: 'daily',
    stamp: '2026-12-04T01-00Z',
    format: 'CSV',
    rows: rows.get('photos') ?? [],
    perFile: 50,
  })
  const reading = await measure({ S3_INVENTORY_DESTINATION: `${DEST}/${prefix}` })
  try {
    const first = await reading.exporter.scanner.firstSnapshot()
    assert.deepEqual(
      first.buckets.map((record) => [record.name, record.scanSuccess, record.usage?.inventory !== undefined]),
      [
        ['photos', true, true],
        ['plain-docs', true, false],
        ['second', true, false],
      ],
      'photos from its inventory, the others listed',
    )
    // The first scan may still be unwinding when its snapshot is out: scanNow would join it.
    await reading.exporter.scanner.scanNow()
    const requests = reading.exporter.scanner.sourceRequests
    const before = requests?.counts().requests.get('GetObject') ?? 0
    const again = await reading.exporter.scanner.scanNow()
    const gets = (requests?.counts().requests.get('GetObject') ?? 0) - before
    // manifest.checksum and manifest.json: the 5 data files are not read again.
    assert.equal(gets, 2, `${gets} GetObject requests on the second scan`)
    const photos = (snapshot: typeof first) => snapshot.buckets.find((record) => record.name === 'photos')
    assert.deepStrictEqual(photos(again)?.usage, photos(first)?.usage)
  } finally {
    await reading.close()
  }
  const skipping = await measure({
    S3_INVENTORY_DESTINATION: `${DEST}/${prefix}`,
    S3_INVENTORY_MISSING: 'skip',
  })
  try {
    const snapshot = await skipping.exporter.scanner.firstSnapshot()
    assert.deepEqual(
      snapshot.buckets.map((record) => record.name),
      ['photos'],
    )
  } finally {
    await skipping.close()
  }
})

test('a bucket measured from its inventory is sent no LIST request; the saved ones are what its listing sent', async (t) => {
  // 1,500 objects: two pages, a listing too short to be split into key ranges.
  const bucket = 'many-keys'
  const objects = Array.from({ length: 1500 }, (_, index) => ({
    key: `k/${String(index).padStart(5, '0')}`,
    size: index % 97,
  }))
  await fillBucket(s3.client, bucket, objects)
  const prefix = 'saved-reports'
  await dailyInventory(prefix, bucket, { rows: await listedRows(s3.client, bucket) })
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  const env = {
    ...s3.exporterEnv,
    S3_ENDPOINT: gate.endpoint,
    SCAN_INTERVAL_SECONDS: '3600',
    BUCKETS: bucket,
  }
  const listing = await startExporter(env)
  const listingScrape = await listing.scrape()
  await listing.close()
  const listed = sampleValue(listingScrape, 'objstore_s3_requests_total', { operation: 'ListObjectsV2' })
  assert.equal(listed, 2, 'the listing source sent two pages')
  const from = gate.seen.length
  const reading = await startExporter({ ...env, S3_INVENTORY_DESTINATION: `${DEST}/${prefix}` })
  try {
    const scrape = await reading.scrape()
    const seen = gate.seen.slice(from)
    const lists = seen.filter((request) => request.operation.startsWith('List'))
    assert.deepEqual(
      lists.filter((request) => request.bucket !== DEST).map((request) => request.operation),
      [],
      'no LIST request to the bucket',
    )
    assert.equal(
      sampleValue(scrape, 'objstore_s3_requests_total', { operation: 'ListObjectsV2' }),
      lists.filter((request) => request.operation === 'ListObjectsV2').length,
      'every ListObjectsV2 counted went to the destination (finding the inventory)',
    )
    assert.equal(
      sampleValue(scrape, 'objstore_bucket_inventory_saved_list_requests', { bucket }),
      listed,
      'the LIST requests saved are what the listing sent',
    )
    assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket }), objects.length)
  } finally {
    await reading.close()
  }
})
