import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import type { UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { subtotalsOf } from '../../src/snapshot/stored-records.js'
import { EventForwarder } from '../support/event-forwarding.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { assertSameMeasure } from '../support/listing-comparison.js'
import { type S3Gate, startS3Gate } from '../support/s3-gate.js'
import {
  fillBucket,
  type ObjectSpec,
  putObjects,
  type S3rverProcess,
  startS3rver,
} from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Incremental scans (issue 25) on a real S3 server: a bucket above SCAN_SUBTOTALS_MIN_OBJECTS keeps
 * per-range subtotals; after puts, overwrites, deletes and a multipart completion, with the changed
 * keys marked (the real DirtyRanges, through the scanner's keyChanges), the round that lists the
 * dirty ranges again measures what a full listing does (an exporter with SCAN_FULL_EVERY=1 on the
 * same bucket: every record field, every family), for fewer listing requests. The marks come from
 * the scanner's keyChanges directly, or from s3rver's own change events forwarded to POST /events
 * (only the dirty ranges listed again); with no mark at all,
 * the figures are exact again within SCAN_FULL_EVERY rounds.
 */

let s3: S3rverProcess
let gate: S3Gate
const EVENTS_TOKEN = 'incremental-events-token-8d2f4a61'
const events = new EventForwarder(EVENTS_TOKEN)

const sizeOf = (index: number) => (index % 97 === 0 ? 1_200_000 + index : (index * 37) % 5_000)
const KEYS: ObjectSpec[] = Array.from({ length: 4_000 }, (_, index) => ({
  key: `obj-${String(index).padStart(6, '0')}`,
  size: sizeOf(index),
}))

before(async () => {
  s3 = await startS3rver({ onEvent: events.forward })
  await fillBucket(s3.client, 'marked', KEYS)
  await fillBucket(s3.client, 'evented', KEYS)
  await fillBucket(s3.client, 'rotated', KEYS)
  await fillBucket(s3.client, 'restarted', KEYS)
  gate = await startS3Gate(s3.port)
})

after(async () => {
  await gate?.close()
  await s3?.stop()
})

const SETTINGS = {
  SCAN_INTERVAL_SECONDS: '3600',
  BUCKET_METRICS: 'all',
  SCAN_CONCURRENCY: '4',
  S3_LIST_RANGES: '4',
  SCAN_SUBTOTALS_MIN_OBJECTS: '1000',
  SCAN_RANGE_MAX_OBJECTS: '600',
}

function startIncremental(bucket: string, fullEvery: number, extra: Record<string, string> = {}) {
  return startExporter({
    ...s3.exporterEnv,
    S3_ENDPOINT: gate.endpoint,
    ...SETTINGS,
    BUCKETS: bucket,
    SCAN_FULL_EVERY: String(fullEvery),
    ...extra,
  })
}

/** What an exporter listing every bucket whole measures now. */
async function fullListing(bucket: string) {
  const exporter = await startExporter({
    ...s3.exporterEnv,
    ...SETTINGS,
    BUCKETS: bucket,
    SCAN_FULL_EVERY: '1',
  })
  try {
    const snapshot = await exporter.exporter.scanner.firstSnapshot()
    assert.equal(snapshot.buckets[0]?.ranges, undefined, 'SCAN_FULL_EVERY=1 keeps no subtotals')
    return { snapshot, scrape: await exporter.scrape() }
  } finally {
    await exporter.close()
  }
}

/** A round, and the full pages (ListObjectsV2 of 1,000 keys, probes aside) it asked for. */
async function round(
  exporter: RunningExporter,
  bucket: string,
): Promise<{ snapshot: UsageSnapshot; pages: number }> {
  const { scanner } = exporter.exporter
  // The first round may still be publishing (scanNow then answers it): wait for it, then scan.
  if (scanner.nextScanAtMs === undefined) await scanner.scanNow()
  const from = gate.seen.length
  const snapshot = await scanner.scanNow()
  const pages = gate.seen
    .slice(from)
    .filter(
      (request) =>
        request.bucket === bucket &&
        request.operation === 'ListObjectsV2' &&
        request.query.get('max-keys') === '1000' &&
        !request.query.has('delimiter'),
    ).length
  return { snapshot, pages }
}

/** Puts, overwrites, deletes and a multipart completion; the keys they changed. */
async function change(bucket: string, tag: string): Promise<string[]> {
  const put = [`obj-001500-${tag}`, `obj-001501-${tag}`, `obj-001502-${tag}`]
  await putObjects(s3.client, bucket, [
    ...put.map((key) => ({ key, size: 777 })),
    { key: 'obj-001600', size: 123_456 }, // an overwrite
  ])
  await s3.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'obj-001700' }))
  const key = `obj-001800-${tag}-multipart`
  const upload = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
  const part = await s3.client.send(
    new UploadPartCommand({
      Bucket: bucket,
      Key: key,
      UploadId: upload.UploadId,
      PartNumber: 1,
      Body: Buffer.alloc(5 * 2 ** 20 + 1),
    }),
  )
  await s3.client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId: upload.UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    }),
  )
  return [...put, 'obj-001600', 'obj-001700', key]
}

test('changed keys marked: the dirty ranges listed again give a full listing, for fewer requests', async () => {
  const exporter = await startIncremental('marked', 1000)
  try {
    await exporter.exporter.scanner.firstSnapshot() // listed whole: its size is not known yet
    const first = await round(exporter, 'marked') // the first ranged pass: every range
    const ranges = first.snapshot.buckets[0]?.ranges
    assert.ok(ranges && ranges.ranges >= 4, `ranges ${JSON.stringify(ranges)}`)
    assert.equal(ranges.relistedRatio, 1)
    assert.equal(
      subtotalsOf(first.snapshot.buckets[0])?.subtotals.reduce((sum, subtotal) => sum + subtotal.entries, 0),
      KEYS.length,
      'each range counts the objects it holds, not its last page past its end',
    )
    const quiet = await round(exporter, 'marked')
    assert.equal(quiet.pages, 0, 'nothing marked, no range due: nothing listed')
    assertSameMeasure(await fullListing('marked'), {
      snapshot: quiet.snapshot,
      scrape: await exporter.scrape(),
    })

    const changed = await change('marked', 'a')
    // Unmarked, the changes are not seen: the marks are what lists the ranges again.
    const unmarked = await round(exporter, 'marked')
    assert.equal(unmarked.pages, 0)
    assert.equal(unmarked.snapshot.buckets[0]?.usage?.objects, KEYS.length)
    for (const key of changed) exporter.exporter.scanner.keyChanges.markChanged('marked', key)
    const after = await round(exporter, 'marked')
    const summary = after.snapshot.buckets[0]?.ranges
    assert.ok(summary && summary.relistedRatio < 0.6, `share listed again ${summary?.relistedRatio}`)
    assert.ok(after.pages > 0 && after.pages < first.pages, `${after.pages} pages against ${first.pages}`)
    assertSameMeasure(await fullListing('marked'), {
      snapshot: after.snapshot,
      scrape: await exporter.scrape(),
    })
    const scrape = await exporter.scrape()
    assert.ok(scrape.samples.some((sample) => sample.name === 'objstore_bucket_ranges_relisted_ratio'))
  } finally {
    await exporter.close()
  }
})

test('change events through POST /events: only the dirty ranges are listed again, and the figures equal a full listing', async (t) => {
  // No debounce: the events mark ranges and the test runs the round.
  const exporter = await startIncremental('evented', 1000, { EVENTS_AUTH_TOKEN: EVENTS_TOKEN })
  try {
    await exporter.exporter.scanner.firstSnapshot()
    const first = await round(exporter, 'evented') // the first ranged pass: every range
    const ranges = first.snapshot.buckets[0]?.ranges?.ranges ?? 0
    events.target = exporter.baseUrl
    const changed = await change('evented', 'e')
    // s3rver: a Put per put and overwrite, a Delete, a Post for the multipart completion.
    await waitFor('the events applied', async () => {
      await events.settled()
      return sampleValue(await exporter.scrape(), 'objstore_events_applied_total') === changed.length
    })
    assert.ok(
      events.answers.every((status) => status === 200),
      `answers ${events.answers.join()}`,
    )
    const after = await round(exporter, 'evented')
    const summary = after.snapshot.buckets[0]?.ranges
    assert.ok(summary && summary.relistedRatio < 0.6, `share listed again ${summary?.relistedRatio}`)
    assert.ok(after.pages > 0 && after.pages < first.pages, `${after.pages} pages against ${first.pages}`)
    assert.ok(after.pages <= 3, `${after.pages} pages for changes within 300 keys of ${ranges} ranges`)
    t.diagnostic(
      `${after.pages} of ${first.pages} pages listed again; ${ranges} ranges; share ${summary.relistedRatio}`,
    )
    assertSameMeasure(await fullListing('evented'), {
      snapshot: after.snapshot,
      scrape: await exporter.scrape(),
    })
    const quiet = await round(exporter, 'evented')
    assert.equal(quiet.pages, 0, 'the marks were taken: the round after lists nothing')
  } finally {
    events.target = undefined
    await exporter.close()
  }
})

test('no mark at all (events lost): exact again within SCAN_FULL_EVERY rounds', async () => {
  const fullEvery = 3
  const exporter = await startIncremental('rotated', fullEvery)
  try {
    await exporter.exporter.scanner.firstSnapshot()
    await round(exporter, 'rotated') // the first ranged pass
    await change('rotated', 'b')
    let snapshot: UsageSnapshot | undefined
    for (let index = 0; index < fullEvery; index++) snapshot = (await round(exporter, 'rotated')).snapshot
    assert.ok(snapshot?.buckets[0]?.ranges, 'listed in ranges')
    assertSameMeasure(await fullListing('rotated'), {
      snapshot: snapshot as UsageSnapshot,
      scrape: await exporter.scrape(),
    })
  } finally {
    await exporter.close()
  }
})

test('a restart keeps the subtotals: the state file serves them, and the next round lists only what is due', async (t) => {
  const stateFile = join(await scratchFolder(t, 'objstore-incremental-'), 'state.json')
  const first = await startIncremental('restarted', 1000, { STATE_FILE: stateFile })
  let ranges: number | undefined
  try {
    await first.exporter.scanner.firstSnapshot()
    ranges = (await round(first, 'restarted')).snapshot.buckets[0]?.ranges?.ranges
    assert.ok(ranges !== undefined && ranges >= 4)
  } finally {
    await first.close()
  }
  const changed = await change('restarted', 'c')
  const second = await startIncremental('restarted', 1000, { STATE_FILE: stateFile })
  try {
    const loaded = await second.exporter.scanner.firstSnapshot()
    assert.equal(loaded.buckets[0]?.ranges?.ranges, ranges, 'served from the state file')
    for (const key of changed) second.exporter.scanner.keyChanges.markChanged('restarted', key)
    const after = await round(second, 'restarted')
    assert.ok(after.pages > 0 && after.pages <= 3, `${after.pages} pages after the restart`)
    assertSameMeasure(await fullListing('restarted'), {
      snapshot: after.snapshot,
      scrape: await second.scrape(),
    })
  } finally {
    await second.close()
  }
})
