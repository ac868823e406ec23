import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { bucketName, usageFromStats } from '../../src/sources/rgw/source.js'
import { parseBucketStats, parseBucketStatsList } from '../../src/sources/rgw/stats.js'

// Real answers of Ceph 16.2.15, captured by scripts/capture-rgw-fixtures.ts.
const stats = parseBucketStatsList(
  JSON.parse(
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'rgw', 'bucket-stats-all.json'), 'utf8'),
  ),
)
const usageOf = (name: string) => {
  const found = stats.find((entry) => entry.bucket === name)
  assert.ok(found, name)
  return usageFromStats(found)
}
const MiB = 1024 * 1024

describe('rgw source: admin counters as bucket usage', () => {
  it('takes bytes and objects from rgw.main, incomplete uploads from rgw.multimeta', () => {
    const settings = { owner: 'objstore-test', tenant: '' }
    // 11 shards (Ceph 16's default), a few entries: 0 per shard, RGW's "OK".
    const index = { shards: 11, objectsPerShard: 0, fillRatio: 0, fillStatus: 'OK' }
    assert.deepEqual(usageOf('plain'), {
      bytes: 100 + 5000 + MiB,
      objects: 3,
      multipart: { incomplete: 0 },
      settings,
      index,
    })
    assert.deepEqual(usageOf('multipart'), {
      bytes: 5 * MiB + 2000 + 5 * MiB + 1000,
      objects: 3,
      multipart: { incomplete: 1 },
      settings,
      index,
    })
    assert.deepEqual(usageOf('empty'), {
      bytes: 0,
      objects: 0,
      multipart: { incomplete: 0 },
      settings,
      index,
    })
  })

  it('reports an enabled quota with a byte limit, and no quota otherwise', () => {
    assert.equal(usageOf('quota').quotaBytes, MiB)
    assert.equal('quotaBytes' in usageOf('plain'), false)
    const disabled = parseBucketStats({
      bucket: 'b',
      bucket_quota: { enabled: false, max_size: 1000, max_objects: -1 },
    })
    assert.equal('quotaBytes' in usageFromStats(disabled), false)
    const objectsOnly = parseBucketStats({
      bucket: 'b',
      bucket_quota: { enabled: true, max_size: -1, max_objects: 5 },
    })
    assert.equal('quotaBytes' in usageFromStats(objectsOnly), false)
  })

  it('gives none of the families a listing alone can give', () => {
    const usage = usageOf('plain')
    for (const key of [
      'sizeHistogram',
      'sizeRanges',
      'newestModifiedSeconds',
      'storageClassBytes',
      'versions',
    ]) {
      assert.equal(key in usage, false, key)
    }
  })

  it('names a bucket of a named tenant tenant:bucket, as S3 requests to RGW address it', () => {
    assert.equal(bucketName(parseBucketStats({ bucket: 'photos', tenant: 'acme' })), 'acme:photos')
    assert.equal(bucketName(parseBucketStats({ bucket: 'photos', tenant: '' })), 'photos')
  })
})

describe('rgw source configuration', () => {
  const load = (env: Record<string, string>) => loadConfig(env, { dotenvPath: false })

  it('needs S3_ENDPOINT (AWS has no RGW admin API)', () => {
    assert.throws(
      () => load({ BUCKETS_SOURCE: 'rgw' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.lines.some((line) => /^S3_ENDPOINT: required when BUCKETS_SOURCE=rgw/.test(line)),
    )
    const config = load({ BUCKETS_SOURCE: 'rgw', S3_ENDPOINT: 'http://rgw:7480' })
    assert.equal(config.BUCKETS_SOURCE, 'rgw')
    assert.equal(config.RGW_ADMIN_PATH, 'admin')
  })

  it('accepts a custom admin entry, refuses one that is not a path', () => {
    assert.equal(load({ RGW_ADMIN_PATH: '/ops/admin' }).RGW_ADMIN_PATH, '/ops/admin')
    assert.throws(() => load({ RGW_ADMIN_PATH: 'admin?x=1' }), ConfigError)
  })
})
