import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition, sampleValue } from '../support/exposition.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'

/**
 * S3_BUCKET_SETTINGS and BUCKET_TAG_LABELS against s3rver, which implements none of the settings
 * calls the way S3 does: the bucket is still measured, and what s3rver cannot say stays empty.
 */
describe('bucket settings against s3rver', { timeout: 120_000 }, () => {
  let s3: S3rverProcess
  let exporter: RunningExporter
  let scrape: ParsedExposition

  before(async () => {
    s3 = await startS3rver()
    await fillBucket(s3.client, 'settings-bucket', [{ key: 'one', size: 100 }])
    exporter = await startExporter({
      ...s3.exporterEnv,
      SCAN_INTERVAL_SECONDS: '86400',
      S3_BUCKET_SETTINGS: 'true',
      BUCKET_TAG_LABELS: 'team',
      BUCKET_METRICS: 'default,info',
    })
    await exporter.exporter.scanner.scanNow()
    scrape = await exporter.scrape()
  })
  after(async () => {
    await exporter?.close()
    await s3?.stop()
  })

  it('measures the bucket whatever the settings calls answer', () => {
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'settings-bucket' }), 1)
    assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'settings-bucket' }), 100)
  })

  it('versioning from GetBucketVersioning; the calls s3rver lacks leave their labels empty, said once', async () => {
    assert.deepEqual(
      findSamples(scrape, 'objstore_bucket_info', {}).map((sample) => sample.labels),
      [
        {
          bucket: 'settings-bucket',
          owner: '',
          tenant: '',
          versioning: 'Off',
          object_lock: '',
          lifecycle: '',
        },
      ],
    )
    assert.equal(findSamples(scrape, 'objstore_bucket_tag_info', {}).length, 0)
    // A second scan asks s3rver no more: one info line per call it lacks, in all.
    await exporter.exporter.scanner.scanNow()
    const lacking = exporter.logs.lines
      .filter((line) => /^store does not implement (GetB|GetO)/.test(String(line.msg)))
      .map((line) => line.operation)
    assert.deepEqual(lacking, [
      'GetObjectLockConfiguration',
      'GetBucketLifecycleConfiguration',
      'GetBucketTagging',
    ])
  })
})
