import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ListBucketsCommand } from '@aws-sdk/client-s3'
import { assertStopsEverything } from '../support/cluster-stop.js'
import { rgwS3Client } from '../support/rgw-scenario.js'
import { startSwiftCluster, swiftSkipReason } from '../support/swift-cluster.js'

describe('the OpenStack Swift test cluster', { timeout: 10 * 60_000, skip: swiftSkipReason() }, () => {
  it('serves S3 and its own API on loopback; stop() ends every process group, removes its folder', async (t) => {
    const cluster = await startSwiftCluster()
    t.after(() => cluster.stop())
    assert.match(cluster.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.equal(cluster.daemonPids().length, 5, 'memcached, account, container, object and proxy')
    const s3 = rgwS3Client(cluster)
    const listed = await s3.send(new ListBucketsCommand({}))
    assert.deepEqual(listed.Buckets ?? [], [])
    s3.destroy()
    assert.deepEqual(await cluster.containers(), [])
    await assertStopsEverything(cluster)
  })
})
