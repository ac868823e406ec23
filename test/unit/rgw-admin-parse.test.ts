import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { RgwAdminHttpError } from '../../src/sources/rgw/admin.js'
import {
  categoryUsage,
  parseBucketStats,
  parseBucketStatsEntries,
  parseBucketStatsList,
  RGW_MAIN,
  RGW_MULTIMETA,
  RgwAdminResponseError,
} from '../../src/sources/rgw/stats.js'

// Real answers of Ceph 16.2.15's admin API, captured by scripts/capture-rgw-fixtures.ts (which
// says what each bucket holds).
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'rgw', name), 'utf8'))

const MiB = 1024 * 1024

describe('parseBucketStatsList on a captured answer', () => {
  const stats = parseBucketStatsList(fixture('bucket-stats-all.json'))
  const byName = new Map(stats.map((entry) => [entry.bucket, entry]))

  it('lists every bucket of the cluster', () => {
    assert.deepEqual([...byName.keys()].sort(), ['empty', 'multipart', 'plain', 'quota', 'versioned'])
    for (const entry of stats) {
      assert.equal(entry.tenant, '')
      assert.equal(entry.owner, 'objstore-test')
      assert.equal(typeof entry.createdMs, 'number')
    }
  })

  it('reads size, actual size and object count of rgw.main', () => {
    const plain = byName.get('plain')
    assert.ok(plain)
    assert.deepEqual(categoryUsage(plain, RGW_MAIN), {
      sizeBytes: 100 + 5000 + MiB,
      // Each object rounded up to 4 KiB: 4096 + 8192 + 1 MiB.
      actualSizeBytes: 4096 + 8192 + MiB,
      utilizedBytes: 100 + 5000 + MiB,
      objects: 3,
    })
    assert.deepEqual([...plain.usage.keys()], [RGW_MAIN])
  })

  it('counts every version in rgw.main, but not delete markers', () => {
    const versioned = byName.get('versioned')
    assert.ok(versioned)
    const main = categoryUsage(versioned, RGW_MAIN)
    assert.equal(main.sizeBytes, 10 + 20 + 30)
    assert.equal(main.objects, 3)
  })

  it('counts parts of incomplete multipart uploads in rgw.main and the uploads in rgw.multimeta', () => {
    const multipart = byName.get('multipart')
    assert.ok(multipart)
    // The completed upload (5 MiB + 2,000) plus the parts of the incomplete one (5 MiB + 1,000).
    assert.equal(categoryUsage(multipart, RGW_MAIN).sizeBytes, 5 * MiB + 2000 + 5 * MiB + 1000)
    assert.equal(categoryUsage(multipart, RGW_MAIN).objects, 1 + 2)
    assert.deepEqual(categoryUsage(multipart, RGW_MULTIMETA), {
      sizeBytes: 0,
      actualSizeBytes: 0,
      utilizedBytes: 27,
      objects: 1,
    })
  })

  it('reads an empty bucket as no categories, zeros on request', () => {
    const empty = byName.get('empty')
    assert.ok(empty)
    assert.equal(empty.usage.size, 0)
    assert.equal(categoryUsage(empty, RGW_MAIN).sizeBytes, 0)
    assert.equal(categoryUsage(empty, RGW_MAIN).objects, 0)
  })

  it('reads an enabled quota, and -1 as no limit', () => {
    assert.deepEqual(byName.get('quota')?.quota, { enabled: true, maxSizeBytes: MiB, maxObjects: 10 })
    assert.deepEqual(byName.get('plain')?.quota, {
      enabled: false,
      maxSizeBytes: undefined,
      maxObjects: undefined,
    })
  })
})

describe('parseBucketStats', () => {
  it('reads the single-bucket answer (bucket=NAME)', () => {
    const versioned = parseBucketStats(fixture('bucket-stats-one.json'))
    assert.equal(versioned.bucket, 'versioned')
    assert.equal(categoryUsage(versioned, RGW_MAIN).sizeBytes, 60)
  })

  it('accepts a release without size_utilized and without usage', () => {
    const old = parseBucketStats({
      bucket: 'old',
      usage: { 'rgw.main': { size: 5, size_actual: 4096, num_objects: 1 } },
    })
    assert.equal(categoryUsage(old, RGW_MAIN).utilizedBytes, undefined)
    assert.equal(parseBucketStats({ bucket: 'bare' }).usage.size, 0)
  })

  it('refuses malformed answers with the path of the bad field', () => {
    assert.throws(() => parseBucketStatsList({ bucket: 'x' }), RgwAdminResponseError)
    assert.throws(() => parseBucketStats({ usage: {} }), /bucket: expected a bucket name/)
    assert.throws(
      () =>
        parseBucketStatsList([
          { bucket: 'b', usage: { 'rgw.main': { size: -1, size_actual: 0, num_objects: 0 } } },
        ]),
      /\[0\]\(b\)\.usage\.rgw\.main\.size: expected a whole number from 0 to 2\^53-1, got -1/,
    )
    assert.throws(
      () =>
        parseBucketStats({
          bucket: 'b',
          usage: { 'rgw.main': { size: '5', size_actual: 0, num_objects: 0 } },
        }),
      /size: expected a whole number from 0 to 2\^53-1, got "5"/,
    )
  })

  const main = (figures: Record<string, unknown>) => ({
    bucket: 'b',
    usage: { 'rgw.main': { size: 0, size_actual: 0, num_objects: 0, ...figures } },
  })

  it('refuses counts past 2^53 (no longer exact), fractions, and 1e400 (Infinity once parsed)', () => {
    assert.throws(() => parseBucketStats(main({ size: 1e20 })), /size: .*got 100000000000000000000$/)
    assert.throws(() => parseBucketStats(main({ num_objects: 1.5 })), /num_objects: .*got 1\.5$/)
    const infinite = JSON.parse(
      '{"bucket":"b","usage":{"rgw.main":{"size":1e400,"size_actual":0,"num_objects":0}}}',
    )
    assert.throws(() => parseBucketStats(infinite), /size: .*got Infinity$/)
  })

  it('reads -1 as no quota limit, refuses any other limit that is not a count', () => {
    const quota = (limits: Record<string, unknown>) =>
      parseBucketStats({
        bucket: 'b',
        bucket_quota: { enabled: true, max_size: -1, max_objects: -1, ...limits },
      })
    assert.deepEqual(quota({}).quota, { enabled: true, maxSizeBytes: undefined, maxObjects: undefined })
    assert.throws(() => quota({ max_size: 'abc' }), /bucket_quota\.max_size: .*got "abc"$/)
    assert.throws(() => quota({ max_objects: 2.5 }), /bucket_quota\.max_objects: .*got 2\.5$/)
    assert.throws(() => quota({ max_size: 1e300 }), /bucket_quota\.max_size: .*got 1e\+300$/)
  })

  it('refuses the figures of one bucket alone, the others still read', () => {
    const entries = parseBucketStatsEntries([main({ size: -5 }), { bucket: 'good', tenant: 't' }])
    assert.equal(entries.length, 2)
    const [bad, good] = entries
    assert.ok(bad && 'error' in bad && bad.bucket === 'b')
    assert.match(bad.error.message, /^\[0\]\(b\)\.usage\.rgw\.main\.size: .*got -5$/)
    assert.ok(good && 'stats' in good && good.tenant === 't')
    // An element that names no bucket cannot be set aside: the whole answer is refused.
    assert.throws(() => parseBucketStatsEntries([{ usage: {} }]), /\[0\]\.bucket: expected a bucket name/)
  })
})

describe('RgwAdminHttpError', () => {
  it('explains a missing cap and classifies retries', () => {
    const denied = fixture('error-access-denied.json') as { Code: string }
    const error = new RgwAdminHttpError(403, denied.Code)
    assert.match(error.message, /403 AccessDenied .*caps add .*buckets=read/)
    assert.equal(error.retryable, false)
    assert.equal(new RgwAdminHttpError(503, 'SlowDown').retryable, true)
    assert.equal(new RgwAdminHttpError(404, 'NoSuchBucket').retryable, false)
  })
})
