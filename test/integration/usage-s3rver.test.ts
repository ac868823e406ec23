import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { DeleteBucketCommand, DeleteObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3'
import pino from 'pino'
import { loadConfig } from '../../src/config/load.js'
import { createExporter } from '../../src/exporter.js'
import { CapturedLogs, startExporter } from '../support/exporter.js'
import { findSamples, parseExposition, sampleValue } from '../support/exposition.js'
import { freePort } from '../support/process.js'
import { startS3Gate } from '../support/s3-gate.js'
import {
  fillBucket,
  type ObjectSpec,
  putObjects,
  type S3rverProcess,
  startS3rver,
} from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import {
  assertAgeBands,
  assertBucketUsage,
  assertStorageClasses,
  bucketsIn,
  type WrittenObject,
} from '../support/usage-expectations.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The s3 source against a real S3 server (s3rver, in a child process on loopback), with faults
 * injected on the wire by a gate in front of it where a test needs them. s3rver lists every
 * object as STANDARD whatever class it was written with, so storage classes that differ are
 * tested against the documented XML (usage-s3-xml.test.ts).
 */

const SECRET = 'S3RVER-SECRET-never-in-a-log-line'
let s3: S3rverProcess
const written = new Map<string, WrittenObject[]>()

const PHOTOS: ObjectSpec[] = [
  { key: 'été/photo 1.jpg', size: 2_500_000 },
  { key: 'été/photo 2.jpg', size: 700_000 },
  { key: 'thumbs/a+b&c.png', size: 1_023 },
  { key: 'thumbs/b.png', size: 1_024 },
  { key: 'raw/scan.tiff', size: 66_000 },
  { key: 'empty-marker/', size: 0 },
]
/** More than one listing page (1,000 keys), which trips s3rver's DES token trap without the legacy provider. */
const MANY: ObjectSpec[] = Array.from({ length: 1_050 }, (_, index) => ({
  key: `log/${String(index).padStart(5, '0')}.txt`,
  size: (index * 37) % 5_000,
}))

async function fill(bucket: string, objects: ObjectSpec[]): Promise<void> {
  await fillBucket(s3.client, bucket, objects)
  const seen: WrittenObject[] = []
  let next = 0
  const lane = async () => {
    while (next < objects.length) {
      const object = objects[next++] as ObjectSpec
      const head = await s3.client.send(new HeadObjectCommand({ Bucket: bucket, Key: object.key }))
      seen.push({
        size: object.size,
        modifiedSeconds: (head.LastModified?.getTime() ?? Number.NaN) / 1000,
        ...(object.storageClass ? { storageClass: object.storageClass } : {}),
      })
    }
  }
  await Promise.all(Array.from({ length: 16 }, lane))
  written.set(bucket, seen)
}

before(async () => {
  s3 = await startS3rver()
  await fill('photos', PHOTOS)
  await fill('many', MANY)
  await fill('empty', [])
})

after(async () => {
  await s3?.stop()
})

async function removeBucket(bucket: string, keys: readonly string[]): Promise<void> {
  for (const key of keys) await s3.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
  await s3.client.send(new DeleteBucketCommand({ Bucket: bucket }))
}

/** The exporter's environment for the s3 source on `endpoint` (s3rver itself, or a gate in front). */
function s3Env(endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...s3.exporterEnv,
    S3_ENDPOINT: endpoint,
    S3_SECRET_ACCESS_KEY: SECRET,
    SCAN_INTERVAL_SECONDS: '3600',
    // Every group: the expectations cover the opt-in families too.
    BUCKET_METRICS: 'all',
    ...extra,
  }
}

function objectsOf(bucket: string): WrittenObject[] {
  return written.get(bucket) ?? []
}

test('exact figures from s3rver in a real scrape; ListMultipartUploads not implemented: omitted, one info line', async (t) => {
  const exporter = await startExporter(s3Env(s3.endpoint))
  t.after(() => exporter.close())
  await exporter.exporter.scanner.scanNow()
  const scrape = await exporter.scrape()

  assert.deepEqual(bucketsIn(scrape), ['empty', 'many', 'photos'])
  for (const bucket of ['empty', 'many', 'photos']) {
    assertBucketUsage(scrape, bucket, objectsOf(bucket))
    assertStorageClasses(scrape, bucket, objectsOf(bucket))
    assertAgeBands(scrape, bucket, objectsOf(bucket))
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }), 1)
  }
  const all = [...objectsOf('photos'), ...objectsOf('many')]
  assert.equal(sampleValue(scrape, 'objstore_cluster_buckets'), 3)
  assert.equal(sampleValue(scrape, 'objstore_cluster_usage_objects'), all.length)
  assert.equal(
    sampleValue(scrape, 'objstore_cluster_usage_total_bytes'),
    all.reduce((sum, object) => sum + object.size, 0),
  )
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), 1)
  assert.equal(findSamples(scrape, 'objstore_bucket_multipart_uploads_incomplete').length, 0)
  assert.equal(findSamples(scrape, 'objstore_bucket_usage_versions').length, 0)

  const notice = exporter.logs.lines.filter((line) => line.operation === 'ListMultipartUploads')
  assert.equal(notice.length, 1, 'one info line over two scans and three buckets')
  assert.equal(notice[0]?.level, 30)
  assert.match(String(notice[0]?.msg), /does not implement ListMultipartUploads: multipart families omitted/)
  assert.ok(!JSON.stringify(exporter.logs.lines).includes(SECRET), 'the secret key never reaches a log line')
})

test('SCAN_VERSIONS on a store without ListObjectVersions: version families omitted, the rest measured', async (t) => {
  const exporter = await startExporter(s3Env(s3.endpoint, { SCAN_VERSIONS: 'true', BUCKETS: 'photos' }))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assertBucketUsage(scrape, 'photos', objectsOf('photos'))
  assertStorageClasses(scrape, 'photos', objectsOf('photos'))
  for (const family of [
    'objstore_bucket_usage_versions',
    'objstore_bucket_usage_deletemarkers',
    'objstore_bucket_noncurrent_bytes',
    'objstore_bucket_objects_version_distribution',
    'objstore_cluster_usage_versions',
  ]) {
    assert.equal(findSamples(scrape, family).length, 0, `${family} omitted`)
  }
  const notice = exporter.logs.lines.filter((line) => line.operation === 'ListObjectVersions')
  assert.equal(notice.length, 1)
  assert.match(String(notice[0]?.msg), /does not implement ListObjectVersions: version families omitted/)
})

test('throttling (503 SlowDown) is retried with backoff and the bucket is measured', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let throttled = 0
  gate.policy = (request) => {
    if (request.operation === 'ListObjectsV2' && request.bucket === 'photos' && throttled < 2) {
      throttled++
      return { status: 503, code: 'SlowDown' }
    }
    return 'forward' as const
  }
  const exporter = await startExporter(s3Env(gate.endpoint, { BUCKETS: 'photos' }))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(gate.count('ListObjectsV2', 'photos'), 3, 'two throttled attempts, then the one that passed')
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'photos' }), 1)
  assertBucketUsage(scrape, 'photos', objectsOf('photos'))
})

test('a bucket whose listing is denied fails alone, keeps its last figures, is not retried, is logged once', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let deny = false
  gate.policy = (request) =>
    deny && request.bucket === 'photos' && request.operation === 'ListObjectsV2'
      ? { status: 403, code: 'AccessDenied' }
      : 'forward'
  const exporter = await startExporter(s3Env(gate.endpoint))
  t.after(() => exporter.close())
  const good = await exporter.scrape()
  const lastSuccess = sampleValue(good, 'objstore_bucket_scan_last_success_timestamp_seconds', {
    bucket: 'photos',
  })

  deny = true
  const deniedBefore = gate.count('ListObjectsV2', 'photos')
  await exporter.exporter.scanner.scanNow()
  await exporter.exporter.scanner.scanNow()
  assert.equal(gate.count('ListObjectsV2', 'photos') - deniedBefore, 2, 'one request per scan: no retry')
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'photos' }), 0)
  assertBucketUsage(scrape, 'photos', objectsOf('photos'))
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket: 'photos' }),
    lastSuccess,
    'the figures are flagged as from the last success',
  )
  for (const bucket of ['many', 'empty']) {
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }), 1)
  }
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), 1)
  const failures = exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed')
  assert.equal(failures.length, 1, 'logged on the change, not on every scan')
  assert.equal(failures[0]?.kind, 'denied')
  assert.match(String(failures[0]?.error), /AccessDenied \(HTTP 403\)/)

  deny = false
  await exporter.exporter.scanner.scanNow()
  assert.equal(sampleValue(await exporter.scrape(), 'objstore_bucket_scan_success', { bucket: 'photos' }), 1)
  assert.ok(exporter.logs.messages().includes('bucket scan recovered'))
})

test('a missing bucket named in BUCKETS fails without retries while the others are measured', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  const exporter = await startExporter(s3Env(gate.endpoint, { BUCKETS: 'photos,ghost-bucket' }))
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(gate.count('ListObjectsV2', 'ghost-bucket'), 1, 'NoSuchBucket is final')
  assert.equal(gate.count('ListBuckets'), 0, 'a fixed list is not listed')
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'ghost-bucket' }), 0)
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'photos' }), 1)
  assert.deepEqual(bucketsIn(scrape), ['ghost-bucket', 'photos'])
})

test('a scrape during a scan is served from the last completed snapshot', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let hold: Promise<void> | undefined
  let held: () => void = () => undefined
  let release: () => void = () => undefined
  gate.policy = async (request) => {
    if (hold && request.operation === 'ListObjectsV2' && request.bucket === 'scratch') {
      held()
      await hold
    }
    return 'forward' as const
  }
  await fillBucket(s3.client, 'scratch', [{ key: 'one', size: 100 }])
  t.after(() => removeBucket('scratch', ['one', 'two']))
  const exporter = await startExporter(s3Env(gate.endpoint, { BUCKETS: 'scratch,photos' }))
  t.after(() => exporter.close())
  const first = await exporter.scrape()
  assert.equal(sampleValue(first, 'objstore_bucket_usage_total_bytes', { bucket: 'scratch' }), 100)

  await putObjects(s3.client, 'scratch', [{ key: 'two', size: 23 }])
  const isHeld = new Promise<void>((resolve) => {
    held = resolve
  })
  hold = new Promise<void>((resolve) => {
    release = resolve
  })
  const scanning = exporter.exporter.scanner.scanNow()
  await isHeld
  const during = await exporter.scrape()
  assert.equal(sampleValue(during, 'objstore_bucket_usage_total_bytes', { bucket: 'scratch' }), 100)
  assert.equal(
    sampleValue(during, 'objstore_cluster_usage_total_bytes'),
    sampleValue(first, 'objstore_cluster_usage_total_bytes'),
  )
  assert.deepEqual(
    during.samples.filter((sample) => sample.labels.bucket !== undefined),
    first.samples.filter((sample) => sample.labels.bucket !== undefined),
  )
  release()
  hold = undefined
  await scanning
  assert.equal(
    sampleValue(await exporter.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'scratch' }),
    123,
  )
})

test('/readyz answers 503 until the first snapshot, then 200', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  let held: () => void = () => undefined
  const isHeld = new Promise<void>((resolve) => {
    held = resolve
  })
  gate.policy = async (request) => {
    if (request.operation === 'ListBuckets') {
      held()
      await released
    }
    return 'forward' as const
  }
  const dataDir = await scratchFolder(t, 'objstore-readyz-')
  const config = loadConfig({ ...s3Env(gate.endpoint), DATA_DIR: dataDir }, { dotenvPath: false })
  const exporter = await createExporter(config, { logger: pino({ level: 'silent' }, new CapturedLogs()) })
  t.after(() => exporter.close())
  await isHeld
  const waiting = await exporter.app.inject({ url: '/readyz' })
  assert.equal(waiting.statusCode, 503)
  assert.deepEqual(waiting.json().waitingFor, ['usage snapshot'])
  const scrape = parseExposition((await exporter.app.inject({ url: '/metrics' })).body)
  assert.equal(
    findSamples(scrape, 'objstore_source_up').length,
    0,
    'no usage figures before the first snapshot',
  )
  release()
  await exporter.scanner.firstSnapshot()
  // Ready once the snapshot's families are rendered too (a turn or two for two buckets).
  await waitFor('ready', async () => (await exporter.app.inject({ url: '/readyz' })).statusCode === 200)
  const ready = parseExposition((await exporter.app.inject({ url: '/metrics' })).body)
  assert.equal(findSamples(ready, 'objstore_source_up').length, 1, 'ready: the usage figures are served')
})

test('an endpoint that is down: the exporter keeps serving with source_up 0 and logs it once', async (t) => {
  // A port just freed: nothing listens there, so every connection is refused.
  const closedPort = await freePort()
  const exporter = await startExporter(s3Env(`http://127.0.0.1:${closedPort}`))
  t.after(() => exporter.close())
  await exporter.exporter.scanner.scanNow()
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), 0)
  assert.equal(sampleValue(scrape, 'objstore_cluster_buckets'), 0)
  assert.deepEqual(bucketsIn(scrape), [])
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'usage' }), 1)
  assert.equal((await exporter.exporter.app.inject({ url: '/readyz' })).statusCode, 200)
  const down = exporter.logs.lines.filter((line) => line.msg === 'usage source unreachable')
  assert.equal(down.length, 1, 'logged once over two scans')
  assert.match(String(down[0]?.error), /ListBuckets: .*ECONNREFUSED/)
})

test('an endpoint that goes down keeps the last figures, flagged failed, with source_up 0', async (t) => {
  const gate = await startS3Gate(s3.port)
  const exporter = await startExporter(s3Env(gate.endpoint))
  t.after(() => exporter.close())
  const up = await exporter.scrape()
  await gate.close()
  await exporter.exporter.scanner.scanNow()
  const down = await exporter.scrape()
  assert.equal(sampleValue(down, 'objstore_source_up', { source: 's3' }), 0)
  assert.deepEqual(bucketsIn(down), ['empty', 'many', 'photos'])
  for (const bucket of ['empty', 'many', 'photos']) {
    assert.equal(sampleValue(down, 'objstore_bucket_scan_success', { bucket }), 0)
    assert.equal(
      sampleValue(down, 'objstore_bucket_usage_total_bytes', { bucket }),
      sampleValue(up, 'objstore_bucket_usage_total_bytes', { bucket }),
    )
    assert.equal(
      sampleValue(down, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket }),
      sampleValue(up, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket }),
    )
  }
})

test('a bucket deleted from the store disappears from the scrape at the next scan', async (t) => {
  await fillBucket(s3.client, 'short-lived', [{ key: 'x', size: 1 }])
  const exporter = await startExporter(s3Env(s3.endpoint))
  t.after(() => exporter.close())
  assert.ok(bucketsIn(await exporter.scrape()).includes('short-lived'))
  await removeBucket('short-lived', ['x'])
  await exporter.exporter.scanner.scanNow()
  assert.deepEqual(bucketsIn(await exporter.scrape()), ['empty', 'many', 'photos'])
})

test('SCAN_CONCURRENCY bounds the buckets listed at once', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  let inFlight = 0
  let most = 0
  gate.policy = async (request) => {
    if (request.operation === 'ListObjectsV2' && !request.query.has('continuation-token')) {
      inFlight++
      most = Math.max(most, inFlight)
      // Long enough that every bucket allowed to start does so while this one is held.
      await new Promise((resolve) => setTimeout(resolve, 150))
      inFlight--
    }
    return 'forward' as const
  }
  const exporter = await startExporter(s3Env(gate.endpoint, { SCAN_CONCURRENCY: '2' }))
  t.after(() => exporter.close())
  assert.equal(most, 2, 'three buckets, two at a time')
  assert.deepEqual(bucketsIn(await exporter.scrape()), ['empty', 'many', 'photos'])
})

test('a bucket that outlives SCAN_TIMEOUT_SECONDS fails for that scan; the others are measured', async (t) => {
  const gate = await startS3Gate(s3.port)
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  t.after(async () => {
    release()
    await gate.close()
  })
  gate.policy = async (request) => {
    if (request.operation === 'ListObjectsV2' && request.bucket === 'photos') await released
    return 'forward' as const
  }
  const exporter = await startExporter(
    s3Env(gate.endpoint, { BUCKETS: 'photos,empty', SCAN_TIMEOUT_SECONDS: '1' }),
  )
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'photos' }), 0)
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'empty' }), 1)
  assert.ok(sampleValue(scrape, 'objstore_bucket_scan_duration_seconds', { bucket: 'photos' }) >= 1)
  const failure = exporter.logs.lines.find((line) => line.msg === 'bucket scan failed')
  assert.match(String(failure?.error), /not measured within SCAN_TIMEOUT_SECONDS \(1 s\)/)
})
