import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { assertSameMeasure } from '../support/listing-comparison.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client, rgwSourceEnv } from '../support/rgw-scenario.js'
import { createPushTopic } from '../support/rgw-topics.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Change events from a real Ceph RGW 16: a topic whose push endpoint is the exporter's
 * POST /events on loopback (the token in the query: RGW cannot add a header), notifications on a
 * plain and a versioned bucket. Puts, an overwrite, a multipart completion, a delete (RGW sends
 * the deleted size) and a delete marker reach the exporter while each S3 call waits; with an
 * hour-long schedule only they can make it list again, and its figures then equal a fresh
 * exporter's full listing (SCAN_VERSIONS=true: versions and delete markers counted).
 */

const TOKEN = 'events-rgw-token-3b9e51d0c2'
const MIB = 1024 * 1024

let cluster: RgwCluster
let client: S3Client
let exporter: RunningExporter | undefined

before(async () => {
  // A synchronous topic holds the S3 call while the receiver is slow: bound it (300 s by default).
  cluster = await startRgwCluster({ rgwSettings: { 'rgw curl low speed time': '5' } })
  client = rgwS3Client(cluster)
})

after(async () => {
  await exporter?.close()
  client?.destroy()
  await cluster?.stop()
})

async function multipartPut(Bucket: string, Key: string): Promise<void> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))
  const parts = []
  for (const [index, size] of [5 * MIB, 4_321].entries()) {
    const PartNumber = index + 1
    const { ETag } = await client.send(
      new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: Buffer.alloc(size) }),
    )
    parts.push({ ETag, PartNumber })
  }
  await client.send(
    new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
  )
}

test('RGW pushes each change to POST /events; figures follow and equal a full listing', {
  timeout: 300_000,
}, async (t) => {
  const put = (Bucket: string, Key: string, size: number) =>
    client.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(size) }))
  await client.send(new CreateBucketCommand({ Bucket: 'evt-plain' }))
  await client.send(new CreateBucketCommand({ Bucket: 'evt-versioned' }))
  await client.send(
    new PutBucketVersioningCommand({
      Bucket: 'evt-versioned',
      VersioningConfiguration: { Status: 'Enabled' },
    }),
  )
  await put('evt-plain', 'keep.bin', 1_000)
  await put('evt-plain', 'delete.bin', 3_000)
  await put('evt-versioned', 'doc.txt', 700)

  const env = rgwSourceEnv(cluster, 's3', {
    SCAN_VERSIONS: 'true',
    BUCKET_METRICS: 'all',
    SCAN_INTERVAL_SECONDS: '3600',
  })
  const running = await startExporter({ ...env, EVENTS_AUTH_TOKEN: TOKEN, EVENTS_DEBOUNCE_SECONDS: '0.2' })
  exporter = running
  const { scanner } = running.exporter
  await waitFor('the first round to end', () => scanner.nextScanAtMs !== undefined, { timeoutMs: 60_000 })
  const firstRound = scanner.snapshot

  const topicArn = await createPushTopic(cluster, 'exporter', `${running.baseUrl}/events?token=${TOKEN}`)
  for (const Bucket of ['evt-plain', 'evt-versioned'])
    await client.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket,
        NotificationConfiguration: {
          TopicConfigurations: [
            { Id: 'exporter', TopicArn: topicArn, Events: ['s3:ObjectCreated:*', 's3:ObjectRemoved:*'] },
          ],
        },
      }),
    )

  await put('evt-plain', 'new.bin', 4_000)
  await put('evt-plain', 'keep.bin', 10_000) // an overwrite
  await multipartPut('evt-plain', 'archive.tar')
  await client.send(new DeleteObjectCommand({ Bucket: 'evt-plain', Key: 'delete.bin' }))
  await put('evt-versioned', 'doc.txt', 900) // a second version
  await client.send(new DeleteObjectCommand({ Bucket: 'evt-versioned', Key: 'doc.txt' })) // a delete marker
  const sent = 6

  const plainBytes = 10_000 + 4_000 + 5 * MIB + 4_321
  await waitFor(
    'a round listing every change',
    async () => {
      if (scanner.snapshot === firstRound || (scanner.nextScanAtMs ?? 0) - Date.now() < 1_800_000)
        return false
      const scrape = await running.scrape()
      return (
        sampleValue(scrape, 'objstore_events_applied_total') === sent &&
        sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'evt-plain' }) === plainBytes
      )
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  )
  const withEvents = { snapshot: scanner.snapshot, scrape: await running.scrape() }
  assert.equal(sampleValue(withEvents.scrape, 'objstore_events_received_total'), sent)
  assert.equal(
    sampleValue(withEvents.scrape, 'objstore_events_refused_total', { reason: 'invalid_record' }),
    0,
  )

  const fresh = await startExporter(env)
  t.after(() => fresh.close())
  await waitFor('the full listing', () => fresh.exporter.scanner.nextScanAtMs !== undefined, {
    timeoutMs: 60_000,
  })
  const snapshot = fresh.exporter.scanner.snapshot
  assert.ok(snapshot && withEvents.snapshot)
  assertSameMeasure(
    { snapshot, scrape: await fresh.scrape() },
    { snapshot: withEvents.snapshot, scrape: withEvents.scrape },
  )
})
