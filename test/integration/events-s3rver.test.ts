import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { EventForwarder } from '../support/event-forwarding.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { assertSameMeasure } from '../support/listing-comparison.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Change events end to end on a real S3 server: s3rver's in-process `event` emitter (Put, Post
 * for multipart completions, Copy, Delete; AWS's record shape, no size on a delete) is forwarded,
 * one POST per event as Ceph RGW's push endpoint sends them, to the exporter's POST /events with
 * the token in the query. The exporter's schedule is an hour: only the events can make it list
 * again. Once they are applied, its figures equal those of a fresh exporter's full listing.
 */

const TOKEN = 'events-s3rver-token-5f1c0e7a'
const MIB = 1024 * 1024

let s3: S3rverProcess
let exporter: RunningExporter | undefined
const events = new EventForwarder(TOKEN)

before(async () => {
  s3 = await startS3rver({ onEvent: events.forward })
  await fillBucket(s3.client, 'photos', [
    { key: 'keep.jpg', size: 1_000 },
    { key: 'overwrite.jpg', size: 2_000 },
    { key: 'delete.jpg', size: 3_000 },
  ])
  await fillBucket(s3.client, 'ledger', [{ key: 'q1.csv', size: 500 }])
})

after(async () => {
  await exporter?.close()
  await s3?.stop()
})

async function multipartPut(bucket: string, key: string): Promise<void> {
  const { UploadId } = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
  const parts = []
  for (const [index, size] of [5 * MIB, 1_234].entries()) {
    const PartNumber = index + 1
    const { ETag } = await s3.client.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: Buffer.alloc(size) }),
    )
    parts.push({ ETag, PartNumber })
  }
  await s3.client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId,
      MultipartUpload: { Parts: parts },
    }),
  )
}

test('puts, an overwrite, a delete, a copy and a multipart completion: figures follow within the debounce and equal a full listing', async (t) => {
  const env = { ...s3.exporterEnv, BUCKET_METRICS: 'all', SCAN_INTERVAL_SECONDS: '3600' }
  const running = await startExporter({ ...env, EVENTS_AUTH_TOKEN: TOKEN, EVENTS_DEBOUNCE_SECONDS: '0.2' })
  exporter = running
  events.target = running.baseUrl
  const { scanner } = running.exporter
  await waitFor('the first round to end', () => scanner.nextScanAtMs !== undefined)
  const firstRound = scanner.snapshot
  assert.equal(sampleValue(await running.scrape(), 'objstore_bucket_usage_objects', { bucket: 'photos' }), 3)

  const put = (Bucket: string, Key: string, size: number) =>
    s3.client.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(size) }))
  await put('photos', 'new.jpg', 4_000)
  await put('photos', 'overwrite.jpg', 20_000)
  await s3.client.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'delete.jpg' }))
  await s3.client.send(
    new CopyObjectCommand({ Bucket: 'ledger', Key: 'q1-copy.csv', CopySource: 'photos/keep.jpg' }),
  )
  await multipartPut('ledger', 'archive.tar')
  const sent = 5
  await waitFor('the events delivered', () => events.answers.length === sent)
  assert.deepEqual(events.answers, [200, 200, 200, 200, 200])
  // Events during a round make one more round after it: wait for the figures to show the last
  // change and the schedule to be back to the hour (no round running or asked for).
  const ledgerBytes = 500 + 1_000 + 5 * MIB + 1_234
  await waitFor(
    'a round listing every change',
    async () =>
      scanner.snapshot !== firstRound &&
      (scanner.nextScanAtMs ?? 0) - Date.now() > 1_800_000 &&
      sampleValue(await running.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'ledger' }) ===
        ledgerBytes,
    { timeoutMs: 20_000, intervalMs: 50 },
  )
  const withEvents = { snapshot: scanner.snapshot, scrape: await running.scrape() }
  assert.equal(sampleValue(withEvents.scrape, 'objstore_events_received_total'), sent)
  assert.equal(sampleValue(withEvents.scrape, 'objstore_events_applied_total'), sent)
  assert.equal(sampleValue(withEvents.scrape, 'objstore_bucket_usage_objects', { bucket: 'photos' }), 3)
  // Per bucket: photos had a put, an overwrite and a delete; ledger a copy and a multipart completion.
  for (const [bucket, count] of [
    ['photos', 3],
    ['ledger', 2],
  ] as const) {
    assert.equal(sampleValue(withEvents.scrape, 'objstore_bucket_events_received_total', { bucket }), count)
    assert.equal(sampleValue(withEvents.scrape, 'objstore_bucket_events_applied_total', { bucket }), count)
  }

  // A fresh exporter without events lists everything once: the same figures, family by family.
  const fresh = await startExporter(env)
  t.after(() => fresh.close())
  await waitFor('the full listing', () => fresh.exporter.scanner.nextScanAtMs !== undefined)
  const snapshot = fresh.exporter.scanner.snapshot
  assert.ok(snapshot && withEvents.snapshot)
  assertSameMeasure(
    { snapshot, scrape: await fresh.scrape() },
    { snapshot: withEvents.snapshot, scrape: withEvents.scrape },
  )
})
