import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { RgwAdminClient, RgwAdminHttpError } from '../../src/sources/rgw/admin.js'
import { categoryUsage, RGW_MAIN, RGW_MULTIMETA, type RgwBucketStats } from '../../src/sources/rgw/stats.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import {
  type BucketModel,
  type ScenarioStore,
  type ScenarioWriter,
  startScenarioStore,
} from '../support/rgw-scenario.js'

/**
 * The admin client against a real Ceph RGW holding the standard scenario. Expected figures come
 * from the scenario's model of what was written, and pin down how RGW's counters relate to what a
 * listing reports (the difference docs/sources.md "rgw" documents).
 */
describe('RGW admin API client against Ceph RGW', { timeout: 15 * 60_000 }, () => {
  let store: ScenarioStore<RgwCluster>
  let cluster: RgwCluster
  let writer: ScenarioWriter
  let client: RgwAdminClient

  before(async () => {
    store = await startScenarioStore(startRgwCluster)
    ;({ cluster, writer } = store)
    client = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey },
    })
  })
  after(() => store?.stop())

  const model = (name: string): BucketModel => writer.model(name)
  const statsOf = (all: readonly RgwBucketStats[], name: string): RgwBucketStats => {
    const found = all.find((entry) => entry.bucket === name)
    assert.ok(found, `no stats for ${name}`)
    return found
  }

  it('answers for every bucket in one request', async () => {
    const all = await client.listBucketStats()
    assert.deepEqual(all.map((entry) => entry.bucket).sort(), [...writer.buckets.keys()].sort())
  })

  it('equals listing figures for unversioned buckets without incomplete uploads', async () => {
    const all = await client.listBucketStats()
    for (const name of ['plain', 'many-keys', 'empty']) {
      const main = categoryUsage(statsOf(all, name), RGW_MAIN)
      assert.equal(main.sizeBytes, model(name).currentBytes, `${name} bytes`)
      assert.equal(main.objects, model(name).currentObjects, `${name} objects`)
    }
    assert.equal(model('many-keys').currentObjects, 1234)
    assert.equal(statsOf(all, 'empty').usage.size, 0)
  })

  it('counts every version in rgw.main, noncurrent ones too, but no delete markers', async () => {
    const versioned = model('versioned')
    const main = categoryUsage(statsOf(await client.listBucketStats(), 'versioned'), RGW_MAIN)
    assert.equal(main.sizeBytes, versioned.currentBytes + versioned.noncurrentBytes)
    assert.equal(main.objects, versioned.versionCount - versioned.deleteMarkers)
    // The model: 3 current objects, 9 versions of which 2 are delete markers.
    assert.deepEqual([versioned.currentObjects, versioned.versionCount, versioned.deleteMarkers], [3, 9, 2])
  })

  it('counts parts of incomplete multipart uploads in rgw.main, one rgw.multimeta entry per upload', async () => {
    const multipart = model('multipart')
    const stats = statsOf(await client.listBucketStats(), 'multipart')
    const main = categoryUsage(stats, RGW_MAIN)
    assert.equal(main.sizeBytes, multipart.currentBytes + multipart.incompletePartBytes)
    assert.equal(main.objects, multipart.currentObjects + multipart.incompleteParts)
    assert.equal(categoryUsage(stats, RGW_MULTIMETA).objects, multipart.incompleteUploads.length)
    assert.equal(multipart.incompleteUploads.length, 2)
  })

  it('drops an aborted upload and its parts from the counters at once', async () => {
    await writer.createBucket('aborting')
    await writer.put('aborting', 'kept.txt', 500)
    const upload = await writer.s3.send(new CreateMultipartUploadCommand({ Bucket: 'aborting', Key: 'big' }))
    await writer.s3.send(
      new UploadPartCommand({
        Bucket: 'aborting',
        Key: 'big',
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: Buffer.alloc(7000, 1),
      }),
    )
    const during = await client.bucketStats('aborting')
    assert.deepEqual(
      [categoryUsage(during, RGW_MAIN).sizeBytes, categoryUsage(during, RGW_MULTIMETA).objects],
      [500 + 7000, 1],
    )
    await writer.s3.send(
      new AbortMultipartUploadCommand({ Bucket: 'aborting', Key: 'big', UploadId: upload.UploadId }),
    )
    const after = await client.bucketStats('aborting')
    assert.equal(categoryUsage(after, RGW_MAIN).sizeBytes, 500)
    assert.equal(categoryUsage(after, RGW_MAIN).objects, 1)
    assert.equal(categoryUsage(after, RGW_MULTIMETA).objects, 0)
    await writer.delete('aborting', 'kept.txt')
    await writer.s3.send(new DeleteBucketCommand({ Bucket: 'aborting' }))
    writer.buckets.delete('aborting')
  })

  it('sees a bucket created and one deleted between two calls', async () => {
    await writer.s3.send(new CreateBucketCommand({ Bucket: 'short-lived' }))
    const first = await client.listBucketStats()
    assert.ok(first.some((entry) => entry.bucket === 'short-lived'))
    await writer.s3.send(new DeleteBucketCommand({ Bucket: 'short-lived' }))
    await writer.s3.send(new CreateBucketCommand({ Bucket: 'newcomer' }))
    const second = await client.listBucketStats()
    assert.equal(
      second.some((entry) => entry.bucket === 'short-lived'),
      false,
    )
    assert.ok(second.some((entry) => entry.bucket === 'newcomer'))
    await writer.s3.send(new DeleteBucketCommand({ Bucket: 'newcomer' }))
  })

  it('answers one bucket by name, and NoSuchBucket for a missing one', async () => {
    const plain = await client.bucketStats('plain')
    assert.equal(categoryUsage(plain, RGW_MAIN).sizeBytes, model('plain').currentBytes)
    await assert.rejects(client.bucketStats('no-such-bucket'), (error: unknown) => {
      assert.ok(error instanceof RgwAdminHttpError)
      assert.equal(error.status, 404)
      assert.equal(error.code, 'NoSuchBucket')
      assert.equal(error.retryable, false)
      return true
    })
  })

  it('takes a credentials provider (as the SDK default chain gives)', async () => {
    let asked = 0
    const viaProvider = new RgwAdminClient({
      endpoint: `${cluster.endpoint}/`,
      region: 'anything',
      credentials: async () => {
        asked++
        return { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey }
      },
    })
    assert.equal((await viaProvider.listBucketStats()).length, writer.buckets.size)
    assert.ok(asked >= 1)
  })

  it('refuses a user without the buckets=read cap, and a wrong secret', async () => {
    await cluster.createUser({
      uid: 'no-caps',
      displayName: 'no caps',
      accessKeyId: 'NOCAPSACCESSKEY',
      secretAccessKey: 'no-caps-secret',
    })
    const noCaps = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: { accessKeyId: 'NOCAPSACCESSKEY', secretAccessKey: 'no-caps-secret' },
    })
    await assert.rejects(noCaps.listBucketStats(), (error: unknown) => {
      assert.ok(error instanceof RgwAdminHttpError)
      assert.equal(error.status, 403)
      assert.equal(error.code, 'AccessDenied')
      assert.match(error.message, /caps add/)
      assert.equal(error.retryable, false)
      return true
    })
    const wrongSecret = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: { accessKeyId: cluster.accessKeyId, secretAccessKey: 'not-the-secret' },
    })
    await assert.rejects(wrongSecret.listBucketStats(), (error: unknown) => {
      assert.ok(error instanceof RgwAdminHttpError)
      assert.equal(error.status, 403)
      assert.equal(error.code, 'SignatureDoesNotMatch')
      assert.doesNotMatch(error.message, /not-the-secret/)
      return true
    })
  })

  it('stops at an aborted signal', async () => {
    const controller = new AbortController()
    controller.abort(new Error('scan cancelled'))
    await assert.rejects(client.listBucketStats(controller.signal), /scan cancelled/)
  })
})
