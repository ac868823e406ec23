import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ListBucketsCommand } from '@aws-sdk/client-s3'
import { assertStopsEverything } from '../support/cluster-stop.js'
import { startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client } from '../support/rgw-scenario.js'

describe('the Ceph RGW test cluster', { timeout: 15 * 60_000 }, () => {
  it('serves S3 on loopback, then stop() ends every daemon and removes its folder', async (t) => {
    const cluster = await startRgwCluster()
    t.after(() => cluster.stop())
    assert.match(cluster.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.equal(cluster.daemonPids().length, 3, 'monitor, OSD and radosgw')
    const s3 = rgwS3Client(cluster)
    const listed = await s3.send(new ListBucketsCommand({}))
    assert.deepEqual(listed.Buckets ?? [], [])
    s3.destroy()
    await assertStopsEverything(cluster)
  })
})
