import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ListMultipartUploadsCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition } from '../support/exposition.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { MiB, rgwS3Client, rgwSourceEnv, ScenarioWriter } from '../support/rgw-scenario.js'

/**
 * Issue 14's listing-derived figures against a real Ceph RGW through BUCKETS_SOURCE=s3: ages by
 * last-modified band, noncurrent versions by how long they have been noncurrent, expired delete
 * markers, and the bytes of incomplete multipart uploads, stale or not. RGW stamps every write
 * with its own clock, so the test reads the times it gave (ListObjectVersions and
 * ListMultipartUploads, straight from the store) and places each scan's start (the exporter's
 * injected scan clock) between them, where each figure's expected band is known exactly.
 */

const DAY = 86_400_000
const BUCKET = 'aged'
/** Between writes whose order a band must tell apart: RGW may stamp to the second. */
const APART_MS = 1100

describe('where the bytes went, against Ceph RGW', { timeout: 10 * 60_000 }, () => {
  let cluster: RgwCluster
  let writer: ScenarioWriter
  let versioned: RunningExporter
  let current: RunningExporter
  /** The exporters' scan clock: each scan starts at the time set here. */
  let scanStart = 0
  /** Times RGW gave, ms since the epoch: each version by key and order written, each upload by key. */
  const written = new Map<string, number[]>()
  const initiated = new Map<string, number>()

  before(async () => {
    cluster = await startRgwCluster()
    writer = new ScenarioWriter(rgwS3Client(cluster))
    await writer.createBucket(BUCKET, { versioned: true })
    // old.txt first, then report.csv three times, each write apart from the last.
    await writer.put(BUCKET, 'old.txt', 500)
    for (const size of [1000, 2000, 3000]) {
      await sleep(APART_MS)
      await writer.put(BUCKET, 'report.csv', size)
    }
    await sleep(APART_MS)
    await writer.put(BUCKET, 'gone.bin', 4000)
    await writer.delete(BUCKET, 'gone.bin')
    // A delete marker with nothing behind it: an expired object delete marker.
    await writer.delete(BUCKET, 'never-there')
    await writer.put(BUCKET, 'keep.txt', 10)
    // Uploads left open, in key order (the order they are listed and sized), apart in time.
    await writer.multipart(BUCKET, 'open-a', [5 * MiB, 1000], false)
    await sleep(APART_MS)
    await writer.multipart(BUCKET, 'open-b', [4321], false)
    await sleep(APART_MS)
    await writer.multipart(BUCKET, 'open-c', [777], false)

    const listing = await writer.s3.send(new ListObjectVersionsCommand({ Bucket: BUCKET }))
    for (const entry of [...(listing.Versions ?? []), ...(listing.DeleteMarkers ?? [])]) {
      const times = written.get(entry.Key ?? '') ?? []
      times.push(entry.LastModified?.getTime() ?? Number.NaN)
      written.set(
        entry.Key ?? '',
        times.sort((a, b) => a - b),
      )
    }
    const uploads = await writer.s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }))
    for (const upload of uploads.Uploads ?? []) {
      initiated.set(upload.Key ?? '', upload.Initiated?.getTime() ?? Number.NaN)
    }

    const env = (extra: Record<string, string>) =>
      rgwSourceEnv(cluster, 's3', {
        MULTIPART_PARTS_MAX_UPLOADS: '2',
        MULTIPART_STALE_DAYS: '7',
        BUCKET_METRICS: 'all',
        ...extra,
      })
    versioned = await startExporter(env({ SCAN_VERSIONS: 'true' }), { scanClock: () => scanStart })
    current = await startExporter(env({ SCAN_VERSIONS: 'false' }), { scanClock: () => scanStart })
  })
  after(async () => {
    await versioned?.close()
    await current?.close()
    writer?.s3.destroy()
    await cluster?.stop()
  })

  const time = (key: string, index: number): number => {
    const value = written.get(key)?.[index]
    assert.ok(value !== undefined && Number.isFinite(value), `RGW gave a time for ${key} #${index}`)
    return value
  }

  async function scrapeAt(startMs: number, running: RunningExporter): Promise<ParsedExposition> {
    scanStart = startMs
    await running.exporter.scanner.scanNow()
    return running.scrape()
  }

  /** The bucket's samples of `family`, by the value of `label`, zeros left out. */
  const byLabel = (
    scrape: ParsedExposition,
    family: string,
    label: string,
    extra: Record<string, string> = {},
  ) =>
    Object.fromEntries(
      findSamples(scrape, `objstore_${family}`, { bucket: BUCKET, ...extra })
        .filter((sample) => sample.value !== 0)
        .map((sample) => [sample.labels[label], sample.value]),
    )
  const single = (scrape: ParsedExposition, family: string) => {
    const samples = findSamples(scrape, `objstore_${family}`, { bucket: BUCKET })
    assert.equal(samples.length, 1, family)
    return samples[0]?.value
  }

  it('the store stamped the writes in order, apart', () => {
    assert.equal(written.get('report.csv')?.length, 3)
    assert.ok(time('old.txt', 0) < time('report.csv', 0))
    assert.ok(time('report.csv', 1) < time('report.csv', 2))
    assert.ok(time('report.csv', 2) < time('gone.bin', 1), 'gone.bin: version, then its marker')
    assert.ok((initiated.get('open-a') ?? 0) < (initiated.get('open-b') ?? 0))
  })

  it('a day after the second report.csv: each figure in the band its times give', async () => {
    // report.csv's second write was a day and a half-gap ago, its third a day less a half-gap ago.
    const t2 = time('report.csv', 1)
    const t3 = time('report.csv', 2)
    const start = t2 + DAY + (t3 - t2) / 2
    for (const running of [versioned, current]) {
      const scrape = await scrapeAt(start, running)
      // Current: old.txt (500, written before t2) is over a day old; report.csv v3 (3000) and
      // keep.txt (10) under a day.
      assert.deepEqual(byLabel(scrape, 'bucket_age_bytes', 'age'), { lt_7d: 500, lt_1d: 3010 })
      assert.deepEqual(byLabel(scrape, 'bucket_age_objects', 'age'), { lt_7d: 1, lt_1d: 2 })
      assert.deepEqual(
        byLabel(scrape, 'bucket_storage_class_age_bytes', 'age', { storage_class: 'STANDARD' }),
        { lt_7d: 500, lt_1d: 3010 },
      )
      assert.equal(findSamples(scrape, 'objstore_bucket_age_bytes', { bucket: BUCKET }).length, 7)
    }
    const scrape = await scrapeAt(start, versioned)
    // report.csv v1 (1000) became noncurrent at t2: over a day; v2 (2000) at t3: under a day (its
    // own write, at t2, would say over a day); gone.bin (4000) when its marker was written.
    assert.deepEqual(byLabel(scrape, 'bucket_noncurrent_age_bytes', 'age'), { lt_7d: 1000, lt_1d: 6000 })
    assert.deepEqual(byLabel(scrape, 'bucket_noncurrent_age_versions', 'age'), { lt_7d: 1, lt_1d: 2 })
    assert.equal(single(scrape, 'bucket_noncurrent_bytes'), 7000)
    assert.equal(single(scrape, 'bucket_expired_deletemarkers'), 1, 'never-there; gone.bin has a version')
    assert.equal(single(scrape, 'bucket_usage_deletemarkers'), 2)
    // Nothing here is stale yet; two of three uploads sized (MULTIPART_PARTS_MAX_UPLOADS=2).
    assert.equal(single(scrape, 'bucket_multipart_uploads_incomplete'), 3)
    assert.equal(single(scrape, 'bucket_multipart_uploads_incomplete_bytes'), 5 * MiB + 1000 + 4321)
    assert.equal(single(scrape, 'bucket_multipart_uploads_unsized'), 1)
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale'), 0)
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale_bytes'), 0)
    // The listing without versions has no version figures at all.
    const plain = await current.scrape()
    assert.equal(findSamples(plain, 'objstore_bucket_noncurrent_age_bytes').length, 0)
    assert.equal(findSamples(plain, 'objstore_bucket_expired_deletemarkers').length, 0)
  })

  it('seven days after open-a started, between it and open-b: open-a alone is stale', async () => {
    const a = initiated.get('open-a') ?? Number.NaN
    const b = initiated.get('open-b') ?? Number.NaN
    const scrape = await scrapeAt(a + 7 * DAY + (b - a) / 2, versioned)
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale'), 1)
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale_bytes'), 5 * MiB + 1000)
    assert.equal(single(scrape, 'bucket_multipart_uploads_incomplete_bytes'), 5 * MiB + 1000 + 4321)
    // Every write is now between 7 and 30 days old.
    assert.deepEqual(byLabel(scrape, 'bucket_age_bytes', 'age'), { lt_30d: 3510 })
    assert.deepEqual(byLabel(scrape, 'bucket_noncurrent_age_bytes', 'age'), { lt_30d: 7000 })
  })

  it('400 days on: everything is over a year old and every upload stale (the unsized one unsized)', async () => {
    const scrape = await scrapeAt(time('old.txt', 0) + 400 * DAY, versioned)
    assert.deepEqual(byLabel(scrape, 'bucket_age_bytes', 'age'), { gte_365d: 3510 })
    assert.deepEqual(byLabel(scrape, 'bucket_age_objects', 'age'), { gte_365d: 3 })
    assert.deepEqual(byLabel(scrape, 'bucket_noncurrent_age_versions', 'age'), { gte_365d: 3 })
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale'), 3)
    assert.equal(single(scrape, 'bucket_multipart_uploads_stale_bytes'), 5 * MiB + 1000 + 4321)
    assert.equal(single(scrape, 'bucket_multipart_uploads_unsized'), 1)
  })
})
