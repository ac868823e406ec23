import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DeleteBucketCommand } from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition, sampleValue } from '../support/exposition.js'
import { freePort } from '../support/process.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import {
  type BucketModel,
  MiB,
  rgwSourceEnv,
  type ScenarioStore,
  type ScenarioWriter,
  startScenarioStore,
} from '../support/rgw-scenario.js'
import { itMeasuresTheStandardScenario } from '../support/scenario-checks.js'

/**
 * The whole exporter against a real Ceph RGW: BUCKETS_SOURCE=s3 with SCAN_VERSIONS=true lists
 * every bucket of the standard scenario, BUCKETS_SOURCE=rgw reads the admin API's counters, and
 * a real scrape of each must show the exact figures of what was written (the scenario's model).
 */
describe('exporter scrape against Ceph RGW', { timeout: 15 * 60_000 }, () => {
  let store: ScenarioStore<RgwCluster>
  let cluster: RgwCluster
  let writer: ScenarioWriter
  let s3Exporter: RunningExporter
  let rgwExporter: RunningExporter
  let s3Scrape: ParsedExposition
  let rgwScrape: ParsedExposition
  let writtenFrom: number
  let writtenTo: number

  const sourceEnv = (source: 's3' | 'rgw', extra: Record<string, string> = {}) =>
    rgwSourceEnv(cluster, source, extra)

  before(async () => {
    store = await startScenarioStore(startRgwCluster)
    ;({ cluster, writer, writtenFrom, writtenTo } = store)
    await cluster.setBucketQuota('plain', { maxBytes: 64 * MiB })
    s3Exporter = await startExporter(sourceEnv('s3', { SCAN_VERSIONS: 'true' }))
    rgwExporter = await startExporter(sourceEnv('rgw'))
    await Promise.all([s3Exporter.exporter.scanner.scanNow(), rgwExporter.exporter.scanner.scanNow()])
    s3Scrape = await s3Exporter.scrape()
    rgwScrape = await rgwExporter.scrape()
  })
  after(async () => {
    await s3Exporter?.close()
    await rgwExporter?.close()
    await store?.stop()
  })

  const model = (name: string): BucketModel => writer.model(name)
  const value = (scrape: ParsedExposition, name: string, labels: Record<string, string> = {}) =>
    sampleValue(scrape, `objstore_${name}`, labels)
  const absent = (scrape: ParsedExposition, name: string, bucket: string) =>
    assert.equal(findSamples(scrape, `objstore_${name}`, { bucket }).length, 0, `${name}{bucket="${bucket}"}`)

  describe('BUCKETS_SOURCE=s3, SCAN_VERSIONS=true', () => {
    itMeasuresTheStandardScenario(() => ({ writer, scrape: s3Scrape, writtenFrom, writtenTo }))
  })

  describe('BUCKETS_SOURCE=rgw (admin API counters)', () => {
    it('reports every bucket and the source up', () => {
      assert.equal(value(rgwScrape, 'source_up', { source: 'rgw' }), 1)
      assert.equal(value(rgwScrape, 'cluster_buckets'), writer.buckets.size)
      for (const name of writer.buckets.keys()) {
        assert.equal(value(rgwScrape, 'bucket_scan_success', { bucket: name }), 1, name)
      }
    })

    it('counts its admin requests: one BucketStats a scan, whatever the buckets', () => {
      const scans = rgwExporter.logs.messages().filter((message) => message === 'usage scan finished')
      assert.ok(scans.length >= 1)
      assert.equal(value(rgwScrape, 'rgw_admin_requests_total', { operation: 'BucketStats' }), scans.length)
      assert.equal(value(rgwScrape, 'rgw_admin_request_errors_total', { operation: 'BucketStats' }), 0)
      assert.equal(findSamples(rgwScrape, 'objstore_s3_requests_total').length, 0)
      // The s3 source lists; its last round's version pages at least one a bucket.
      const pages = value(s3Scrape, 'usage_last_scan_listing_pages', { operation: 'ListObjectVersions' })
      assert.ok(pages >= writer.buckets.size, `${pages} pages for ${writer.buckets.size} buckets`)
      assert.ok(value(s3Scrape, 's3_requests_total', { operation: 'ListObjectVersions' }) >= 2 * pages)
    })

    it('equals the s3 source where listing and counters agree: unversioned, no incomplete uploads', () => {
      for (const name of ['plain', 'many-keys', 'empty']) {
        for (const family of ['bucket_usage_total_bytes', 'bucket_usage_objects']) {
          assert.equal(
            value(rgwScrape, family, { bucket: name }),
            value(s3Scrape, family, { bucket: name }),
            name,
          )
        }
      }
    })

    it('differs as documented: noncurrent versions and incomplete parts are counted', () => {
      for (const [name, bucket] of writer.buckets) {
        const labels = { bucket: name }
        const s3Bytes = value(s3Scrape, 'bucket_usage_total_bytes', labels)
        const s3Noncurrent = value(s3Scrape, 'bucket_noncurrent_bytes', labels)
        const s3NoncurrentVersions =
          value(s3Scrape, 'bucket_usage_versions', labels) -
          value(s3Scrape, 'bucket_usage_deletemarkers', labels) -
          value(s3Scrape, 'bucket_usage_objects', labels)
        assert.equal(
          value(rgwScrape, 'bucket_usage_total_bytes', labels),
          s3Bytes + s3Noncurrent + bucket.incompletePartBytes,
          `${name} bytes`,
        )
        assert.equal(
          value(rgwScrape, 'bucket_usage_objects', labels),
          value(s3Scrape, 'bucket_usage_objects', labels) + s3NoncurrentVersions + bucket.incompleteParts,
          `${name} objects`,
        )
        assert.equal(
          value(rgwScrape, 'bucket_multipart_uploads_incomplete', labels),
          value(s3Scrape, 'bucket_multipart_uploads_incomplete', labels),
          `${name} incomplete uploads`,
        )
      }
      assert.ok(model('versioned').noncurrentBytes > 0 && model('multipart').incompletePartBytes > 0)
    })

    it('reports an enabled bucket quota, and nothing for buckets without one', () => {
      assert.equal(value(rgwScrape, 'bucket_quota_total_bytes', { bucket: 'plain' }), 64 * MiB)
      absent(rgwScrape, 'bucket_quota_total_bytes', 'versioned')
    })

    it('leaves out the families the counters cannot give', () => {
      for (const family of [
        'bucket_objects_size_distribution',
        'bucket_object_size_bytes_bucket',
        'bucket_newest_object_timestamp_seconds',
        'bucket_oldest_object_timestamp_seconds',
        'bucket_storage_class_bytes',
        'bucket_usage_versions',
        'bucket_usage_deletemarkers',
        'bucket_noncurrent_bytes',
        'bucket_multipart_oldest_initiated_timestamp_seconds',
      ]) {
        absent(rgwScrape, family, 'plain')
        absent(rgwScrape, family, 'multipart')
      }
    })

    it("says in HELP where the rgw source's numbers come from", () => {
      assert.match(rgwScrape.help.get('objstore_bucket_usage_total_bytes') ?? '', /rgw/i)
      assert.match(rgwScrape.help.get('objstore_bucket_usage_objects') ?? '', /rgw/i)
    })
  })

  it('rgw: a key without the admin cap is source_up 0 with a log line naming the cap, never the secret', async () => {
    await cluster.createUser({
      uid: 'plain-user',
      displayName: 'plain user',
      accessKeyId: 'PLAINUSERKEY',
      secretAccessKey: 'plain-user-secret-value',
    })
    const denied = await startExporter(
      sourceEnv('rgw', { S3_ACCESS_KEY_ID: 'PLAINUSERKEY', S3_SECRET_ACCESS_KEY: 'plain-user-secret-value' }),
    )
    try {
      await denied.exporter.scanner.scanNow()
      await denied.exporter.scanner.scanNow()
      const scrape = await denied.scrape()
      assert.equal(value(scrape, 'source_up', { source: 'rgw' }), 0)
      assert.equal(findSamples(scrape, 'objstore_bucket_usage_total_bytes').length, 0)
      // Each scan one request, refused (a denial is not retried).
      const scans = denied.logs.messages().filter((message) => message === 'usage scan finished').length
      assert.ok(scans >= 2)
      assert.equal(value(scrape, 'rgw_admin_requests_total', { operation: 'BucketStats' }), scans)
      assert.equal(value(scrape, 'rgw_admin_request_errors_total', { operation: 'BucketStats' }), scans)
      const warnings = denied.logs.lines.filter((line) => line.msg === 'usage source unreachable')
      assert.equal(warnings.length, 1, 'logged once per state change, not per scan')
      assert.match(String(warnings[0]?.error), /403 AccessDenied.*buckets=read/)
      const allLogs = JSON.stringify(denied.logs.lines)
      assert.equal(allLogs.includes('plain-user-secret-value'), false)
      assert.equal(allLogs.includes(cluster.secretAccessKey), false)
    } finally {
      await denied.close()
    }
  })

  it('rgw: a wrong RGW_ADMIN_PATH is source_up 0, explained', async () => {
    const wrongPath = await startExporter(sourceEnv('rgw', { RGW_ADMIN_PATH: 'not-admin' }))
    try {
      await wrongPath.exporter.scanner.scanNow()
      const scrape = await wrongPath.scrape()
      assert.equal(value(scrape, 'source_up', { source: 'rgw' }), 0)
      const warning = wrongPath.logs.lines.find((line) => line.msg === 'usage source unreachable')
      assert.match(
        String(warning?.error),
        /answered 404 NoSuchBucket \(no RGW admin API there: .*RGW_ADMIN_PATH/,
      )
    } finally {
      await wrongPath.close()
    }
  })

  it('rgw: an endpoint that is down is source_up 0 after the retries, and the exporter keeps serving', async () => {
    const closedPort = await freePort()
    const down = await startExporter(sourceEnv('rgw', { S3_ENDPOINT: `http://127.0.0.1:${closedPort}` }))
    try {
      await down.exporter.scanner.scanNow()
      const scrape = await down.scrape()
      assert.equal(value(scrape, 'source_up', { source: 'rgw' }), 0)
      const warning = down.logs.lines.find((line) => line.msg === 'usage source unreachable')
      assert.match(String(warning?.error), /ECONNREFUSED/)
    } finally {
      await down.close()
    }
  })

  it('shows a bucket created between two scans, and drops one deleted (both sources)', async () => {
    await writer.createBucket('newcomer')
    await writer.put('newcomer', 'hello.txt', 42)
    await writer.s3.send(new DeleteBucketCommand({ Bucket: 'empty' }))
    writer.buckets.delete('empty')
    for (const running of [s3Exporter, rgwExporter]) {
      await running.exporter.scanner.scanNow()
      const scrape = await running.scrape()
      assert.equal(value(scrape, 'bucket_usage_total_bytes', { bucket: 'newcomer' }), 42)
      assert.equal(value(scrape, 'bucket_usage_objects', { bucket: 'newcomer' }), 1)
      assert.equal(
        scrape.samples.some((sample) => sample.labels.bucket === 'empty'),
        false,
        'no series left for the deleted bucket',
      )
      assert.equal(value(scrape, 'cluster_buckets'), writer.buckets.size)
    }
  })
})
