import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ListBucketsCommand } from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition, sampleValue } from '../support/exposition.js'
import {
  inParallel,
  MiB,
  rgwSourceEnv,
  type ScenarioStore,
  type ScenarioWriter,
  startScenarioStore,
  writeStandardScenario,
} from '../support/rgw-scenario.js'
import { itMeasuresTheStandardScenario } from '../support/scenario-checks.js'
import { type SwiftCluster, startSwiftCluster, swiftSkipReason } from '../support/swift-cluster.js'
import { bucketsIn } from '../support/usage-expectations.js'

/**
 * The whole exporter against OpenStack Swift 2.30's S3 layer (s3api), a third real S3
 * implementation: BUCKETS_SOURCE=s3 with SCAN_VERSIONS=true must show the exact figures of the
 * standard scenario, as against Ceph RGW (scenario-checks.ts). Then Swift's own ways: multipart
 * parts kept in a hidden `<bucket>+segments` container, settings it does not implement.
 */
describe('exporter scrape against OpenStack Swift (s3api)', {
  timeout: 15 * 60_000,
  skip: swiftSkipReason(),
}, () => {
  let store: ScenarioStore<SwiftCluster>
  let cluster: SwiftCluster
  let writer: ScenarioWriter
  let exporter: RunningExporter
  let scrape: ParsedExposition
  let writtenFrom: number
  let writtenTo: number

  before(async () => {
    store = await startScenarioStore(startSwiftCluster, async (writer) => {
      await writeStandardScenario(writer)
      // Past one page of versions (1,000 entries): 200 keys, a delete marker on every tenth.
      await writer.createBucket('long-history', { versioned: true })
      const keys = Array.from({ length: 200 }, (_, index) => `h/${String(index).padStart(3, '0')}`)
      await inParallel(keys, 8, async (key) => {
        const index = Number(key.slice(2))
        for (let version = 1; version <= 5; version++) await writer.put('long-history', key, index + version)
        if (index % 10 === 0) await writer.delete('long-history', key)
      })
    })
    ;({ cluster, writer, writtenFrom, writtenTo } = store)
    exporter = await startExporter(
      rgwSourceEnv(cluster, 's3', {
        SCAN_VERSIONS: 'true',
        BUCKET_METRICS: 'all',
        S3_BUCKET_SETTINGS: 'true',
        BUCKET_TAG_LABELS: 'team',
      }),
    )
    await exporter.exporter.scanner.scanNow()
    scrape = await exporter.scrape()
  })
  after(async () => {
    await exporter?.close()
    await store?.stop()
  })

  const value = (name: string, labels: Record<string, string> = {}) =>
    sampleValue(scrape, `objstore_${name}`, labels)

  describe('BUCKETS_SOURCE=s3, SCAN_VERSIONS=true', () => {
    itMeasuresTheStandardScenario(() => ({ writer, scrape, writtenFrom, writtenTo }))
  })

  it('pages a versioned bucket past 1,000 entries: every version and delete marker counted', () => {
    const history = writer.model('long-history')
    const labels = { bucket: 'long-history' }
    assert.deepEqual([history.versionCount, history.deleteMarkers, history.currentObjects], [1020, 20, 180])
    assert.equal(value('bucket_usage_versions', labels), history.versionCount)
    assert.equal(value('bucket_usage_deletemarkers', labels), history.deleteMarkers)
    assert.equal(value('bucket_usage_objects', labels), history.currentObjects)
    assert.equal(value('bucket_noncurrent_bytes', labels), history.noncurrentBytes)
  })

  it('keeps multipart parts in a hidden multipart+segments container, which is no bucket', async () => {
    const containers = await cluster.containers()
    assert.deepEqual(
      containers.map((container) => container.name),
      ['empty', 'long-history', 'many-keys', 'multipart', 'multipart+segments', 'plain', 'versioned'],
    )
    assert.deepEqual(bucketsIn(scrape), [...writer.buckets.keys()].sort())
    assert.equal(value('cluster_buckets'), writer.buckets.size)
  })

  it("accounts for every segment byte: completed uploads in their object, open ones' parts apart", async () => {
    const segments = (await cluster.containers()).find((container) => container.name === 'multipart+segments')
    const multipart = writer.model('multipart')
    const labels = { bucket: 'multipart' }
    // The parts of the completed upload (5 MiB + 123 B) stay in the segments container, behind its
    // manifest object; the open uploads' parts are there too.
    assert.equal(value('bucket_multipart_uploads_incomplete_bytes', labels), multipart.incompletePartBytes)
    assert.equal(multipart.incompletePartBytes, 5 * MiB + 1000 + 4321)
    assert.equal(
      segments?.bytes,
      5 * MiB + 123 + value('bucket_multipart_uploads_incomplete_bytes', labels),
      'segments bytes = the completed object + the incomplete parts',
    )
    // Objects: the completed upload's two parts, the open ones' parts, and one empty marker an
    // open upload (`<key>/<upload id>`), which s3api removes on completion.
    assert.equal(segments?.count, 2 + multipart.incompleteParts + multipart.incompleteUploads.length)
    assert.equal(value('bucket_multipart_uploads_unsized', labels), 0)
  })

  it('ListBuckets gives every bucket the same 2009 creation date; no figure depends on it', async () => {
    const listed = await writer.s3.send(new ListBucketsCommand({}))
    assert.deepEqual(
      new Set(listed.Buckets?.map((bucket) => bucket.CreationDate?.toISOString())),
      new Set(['2009-02-03T16:45:09.000Z']),
    )
    for (const name of writer.buckets.keys()) assert.equal(value('bucket_scan_success', { bucket: name }), 1)
  })

  it('reads versioning; lifecycle and object lock Off (s3api answers both with a listing), no tags', () => {
    assert.equal(
      value('bucket_info', {
        bucket: 'versioned',
        versioning: 'Enabled',
        object_lock: 'Off',
        lifecycle: 'Off',
      }),
      1,
    )
    assert.equal(
      value('bucket_info', { bucket: 'plain', versioning: 'Off', object_lock: 'Off', lifecycle: 'Off' }),
      1,
    )
    // GetBucketTagging answers an empty set (PutBucketTagging is NotImplemented): no tag series.
    assert.equal(findSamples(scrape, 'objstore_bucket_tag_info').length, 0)
  })
})
