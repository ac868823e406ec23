import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { assertSameMeasure, rangeStarts, slowPages } from '../support/listing-comparison.js'
import { type S3Gate, startS3Gate } from '../support/s3-gate.js'
import { fillBucket, type ObjectSpec, type S3rverProcess, startS3rver } from '../support/s3rver.js'

/**
 * One bucket listed in key ranges at once (S3_LIST_RANGES, issue 15) measures what one listing
 * page after page does: every field of the record, every family of the scrape (BUCKET_METRICS=all,
 * prefixes two levels deep), on a real S3 server with flat keys and with nested keys, each over
 * two listing pages so that the listing splits. The gate in front of s3rver makes full pages slow
 * (slowPages: the plan is ready before so small a bucket is listed) and shows the ranges were
 * listed (StartAfter requests), so the comparison cannot pass by listing once both times.
 */

let s3: S3rverProcess
let gate: S3Gate

/** Mostly small objects, some over 1 MiB: several sizes ranges and histogram buckets. */
const sizeOf = (index: number) => (index % 97 === 0 ? 1_200_000 + index : (index * 37) % 5_000)

/** A bucket splits once two pages are listed and more than a page of keys follows. */
const FLAT: ObjectSpec[] = Array.from({ length: 3_200 }, (_, index) => ({
  key: `obj-${String(index).padStart(6, '0')}`,
  size: sizeOf(index),
}))

/**
 * Forty-two folders of fifty objects; keys at the top level before and after them. One level deep:
 * s3rver's Delimiter listing walks its folders only one level below the prefix, so deeper keys
 * would not show their common prefixes there (the RGW test nests deeper).
 */
const NESTED: ObjectSpec[] = [
  { key: 'readme', size: 10 },
  ...Array.from({ length: 2_100 }, (_, index) => ({
    key: `t${String(Math.floor(index / 50)).padStart(2, '0')}/o${String(index % 50).padStart(3, '0')}`,
    size: sizeOf(index),
  })),
  { key: 'zz-last', size: 2_000_000 },
]

before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, 'flat-keys', FLAT)
  await fillBucket(s3.client, 'nested-keys', NESTED)
  gate = await startS3Gate(s3.port)
  gate.policy = slowPages(2_000)
})

after(async () => {
  await gate?.close()
  await s3?.stop()
})

async function measure(extra: Record<string, string>) {
  const from = gate.seen.length
  const exporter = await startExporter({
    ...s3.exporterEnv,
    S3_ENDPOINT: gate.endpoint,
    SCAN_INTERVAL_SECONDS: '3600',
    BUCKET_METRICS: 'all',
    PREFIX_DEPTH: '2',
    SCAN_CONCURRENCY: '16',
    ...extra,
  })
  try {
    const snapshot = await exporter.exporter.scanner.firstSnapshot()
    return { snapshot, scrape: await exporter.scrape(), seen: gate.seen.slice(from) }
  } finally {
    await exporter.close()
  }
}

test('flat and nested keys: key ranges listed at once give the figures of one listing', async () => {
  const sequential = await measure({ S3_LIST_RANGES: '0' })
  const ranged = await measure({ S3_LIST_RANGES: '4' })
  for (const bucket of ['flat-keys', 'nested-keys']) {
    assert.deepEqual(rangeStarts(sequential.seen, bucket, 'ListObjectsV2'), [], `${bucket}: one listing`)
    const starts = rangeStarts(ranged.seen, bucket, 'ListObjectsV2')
    // At least one range besides the first listing: the bucket was split.
    assert.ok(starts.length >= 1, `${bucket}: ranges listed from ${JSON.stringify(starts)}`)
  }
  assert.ok(
    rangeStarts(ranged.seen, 'nested-keys', 'ListObjectsV2').some((start) => /^t\d\d\/$/.test(start)),
    'nested keys split at common prefixes',
  )
  assert.equal(
    ranged.snapshot.buckets.find((record) => record.name === 'flat-keys')?.usage?.objects,
    FLAT.length,
  )
  assert.equal(
    ranged.snapshot.buckets.find((record) => record.name === 'nested-keys')?.usage?.objects,
    NESTED.length,
  )
  assertSameMeasure(sequential, ranged)
})
