import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { describe, it } from 'node:test'
import { ListBucketsCommand } from '@aws-sdk/client-s3'
import { startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client } from '../support/rgw-scenario.js'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the Ceph RGW test cluster', { timeout: 15 * 60_000 }, () => {
  it('serves S3 on loopback, then stop() ends every daemon and removes its folder', async (t) => {
    const cluster = await startRgwCluster()
    t.after(() => cluster.stop())
    assert.match(cluster.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/)
    const pids = cluster.daemonPids()
    assert.equal(pids.length, 3, 'monitor, OSD and radosgw')
    const s3 = rgwS3Client(cluster)
    const listed = await s3.send(new ListBucketsCommand({}))
    assert.deepEqual(listed.Buckets ?? [], [])
    s3.destroy()

    await cluster.stop()
    assert.equal(existsSync(cluster.dir), false)
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} still running`)
    await cluster.stop() // idempotent
  })
})
