import assert from 'node:assert/strict'
import { it } from 'node:test'
import { findSamples, type ParsedExposition, sampleValue } from './exposition.js'
import { type BucketModel, MiB, type ScenarioWriter, sum } from './rgw-scenario.js'
import { assertStorageClasses } from './usage-expectations.js'

/**
 * What a scrape of BUCKETS_SOURCE=s3 with SCAN_VERSIONS=true must show for the standard scenario
 * (rgw-scenario.ts), exactly, from the scenario's model: one set of tests for every real store
 * the suite runs (Ceph RGW, OpenStack Swift), so each is held to the same figures.
 */

export interface ScenarioScrape {
  readonly writer: ScenarioWriter
  /** The exporter's scrape after a scan that followed the writing. */
  readonly scrape: ParsedExposition
  /** Whole seconds since the epoch around the writing (one second of slack each side). */
  readonly writtenFrom: number
  readonly writtenTo: number
}

/** Registers the tests; `get` is called inside each, after the suite's `before` has filled it. */
export function itMeasuresTheStandardScenario(get: () => ScenarioScrape): void {
  const scrape = () => get().scrape
  const model = (name: string): BucketModel => get().writer.model(name)
  const value = (exposition: ParsedExposition, name: string, labels: Record<string, string> = {}) =>
    sampleValue(exposition, `objstore_${name}`, labels)
  const absent = (exposition: ParsedExposition, name: string, bucket: string) =>
    assert.equal(
      findSamples(exposition, `objstore_${name}`, { bucket }).length,
      0,
      `${name}{bucket="${bucket}"}`,
    )

  it('reports every bucket, the source up and every scan successful', () => {
    assert.equal(value(scrape(), 'source_up', { source: 's3' }), 1)
    assert.equal(value(scrape(), 'cluster_buckets'), get().writer.buckets.size)
    for (const name of get().writer.buckets.keys()) {
      assert.equal(value(scrape(), 'bucket_scan_success', { bucket: name }), 1, name)
    }
  })

  it('measures current objects and bytes of every bucket, and the cluster totals', () => {
    for (const [name, bucket] of get().writer.buckets) {
      assert.equal(value(scrape(), 'bucket_usage_total_bytes', { bucket: name }), bucket.currentBytes, name)
      assert.equal(value(scrape(), 'bucket_usage_objects', { bucket: name }), bucket.currentObjects, name)
    }
    const buckets = [...get().writer.buckets.values()]
    assert.equal(value(scrape(), 'cluster_usage_total_bytes'), sum(buckets.map((b) => b.currentBytes)))
    assert.equal(value(scrape(), 'cluster_usage_objects'), sum(buckets.map((b) => b.currentObjects)))
    assert.equal(value(scrape(), 'cluster_usage_versions'), sum(buckets.map((b) => b.versionCount)))
    assert.equal(value(scrape(), 'cluster_usage_deletemarkers'), sum(buckets.map((b) => b.deleteMarkers)))
  })

  it('counts versions, delete markers and noncurrent bytes of the versioned bucket', () => {
    const versioned = model('versioned')
    const labels = { bucket: 'versioned' }
    assert.equal(value(scrape(), 'bucket_usage_versions', labels), versioned.versionCount)
    assert.equal(value(scrape(), 'bucket_usage_deletemarkers', labels), versioned.deleteMarkers)
    assert.equal(value(scrape(), 'bucket_noncurrent_bytes', labels), versioned.noncurrentBytes)
    assert.deepEqual(
      [versioned.versionCount, versioned.deleteMarkers, versioned.noncurrentBytes],
      [9, 2, 1000 + 2000 + 4000 + 50],
    )
    // Entries per key: report.csv 3, gone.bin 2 (version + marker), back.txt 3, single.txt 1.
    const perKey = [...versioned.versionsByKey.values()].map((versions) => versions.length)
    const range = (name: string) =>
      value(scrape(), 'bucket_objects_version_distribution', { ...labels, range: name })
    assert.equal(range('SINGLE_VERSION'), perKey.filter((n) => n === 1).length)
    assert.equal(range('BETWEEN_2_AND_10'), perKey.filter((n) => n >= 2 && n < 10).length)
    assert.equal(range('UNVERSIONED'), 0)
  })

  it('sees the unversioned bucket beside it: one null version per key, no noncurrent bytes', () => {
    const plain = model('plain')
    const labels = { bucket: 'plain' }
    assert.equal(value(scrape(), 'bucket_usage_versions', labels), plain.currentObjects)
    assert.equal(value(scrape(), 'bucket_usage_deletemarkers', labels), 0)
    assert.equal(value(scrape(), 'bucket_noncurrent_bytes', labels), 0)
    assert.equal(
      value(scrape(), 'bucket_objects_version_distribution', { ...labels, range: 'UNVERSIONED' }),
      plain.currentObjects,
    )
  })

  it("sorts the plain bucket's objects into MinIO's size ranges and the histogram", () => {
    const labels = { bucket: 'plain' }
    const range = (name: string) =>
      value(scrape(), 'bucket_objects_size_distribution', { ...labels, range: name })
    // Sizes written: 0, 200, 1023 | 1024, 5000 | 64 KiB+1 | 256 KiB+1 | 512 KiB+1 | 1 MiB, 1 MiB+1 | 10 MiB+1.
    assert.equal(range('LESS_THAN_1024_B'), 3)
    assert.equal(range('BETWEEN_1024_B_AND_64_KB'), 2)
    assert.equal(range('BETWEEN_64_KB_AND_256_KB'), 1)
    assert.equal(range('BETWEEN_256_KB_AND_512_KB'), 1)
    assert.equal(range('BETWEEN_512_KB_AND_1_MB'), 1)
    assert.equal(range('BETWEEN_1024B_AND_1_MB'), 5)
    assert.equal(range('BETWEEN_1_MB_AND_10_MB'), 2)
    assert.equal(range('BETWEEN_10_MB_AND_64_MB'), 1)
    assert.equal(range('GREATER_THAN_512_MB'), 0)
    const sizes = model('plain').currentSizes
    const buckets = findSamples(scrape(), 'objstore_bucket_object_size_bytes_bucket', labels)
    assert.ok(buckets.length > 2)
    for (const sample of buckets) {
      const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le)
      assert.equal(sample.value, sizes.filter((size) => size <= le).length, `le=${sample.labels.le}`)
    }
    assert.equal(value(scrape(), 'bucket_object_size_bytes_sum', labels), sum(sizes))
    assert.equal(value(scrape(), 'bucket_object_size_bytes_count', labels), sizes.length)
  })

  it('reports newest and oldest object times within the writing window', () => {
    for (const name of ['plain', 'versioned', 'multipart', 'many-keys']) {
      const newest = value(scrape(), 'bucket_newest_object_timestamp_seconds', { bucket: name })
      const oldest = value(scrape(), 'bucket_oldest_object_timestamp_seconds', { bucket: name })
      assert.ok(get().writtenFrom <= oldest && oldest <= newest && newest <= get().writtenTo, name)
    }
    absent(scrape(), 'bucket_newest_object_timestamp_seconds', 'empty')
  })

  it('counts incomplete multipart uploads and their oldest start; a completed upload is an object', () => {
    const multipart = model('multipart')
    const labels = { bucket: 'multipart' }
    assert.equal(value(scrape(), 'bucket_multipart_uploads_incomplete', labels), 2)
    const oldest = value(scrape(), 'bucket_multipart_oldest_initiated_timestamp_seconds', labels)
    assert.ok(get().writtenFrom <= oldest && oldest <= get().writtenTo)
    assert.equal(multipart.currentBytes, 5 * MiB + 123 + 11)
    assert.equal(value(scrape(), 'bucket_usage_total_bytes', labels), multipart.currentBytes)
    assert.equal(value(scrape(), 'bucket_multipart_uploads_incomplete', { bucket: 'plain' }), 0)
  })

  it('lists past 1,000 keys with spaces, unicode and characters that need URL encoding', () => {
    const manyKeys = model('many-keys')
    assert.equal(value(scrape(), 'bucket_usage_objects', { bucket: 'many-keys' }), 1234)
    assert.equal(value(scrape(), 'bucket_usage_total_bytes', { bucket: 'many-keys' }), manyKeys.currentBytes)
  })

  it('reports the empty bucket as zeros', () => {
    assert.equal(value(scrape(), 'bucket_usage_total_bytes', { bucket: 'empty' }), 0)
    assert.equal(value(scrape(), 'bucket_usage_objects', { bucket: 'empty' }), 0)
  })

  it('puts every current byte in its storage class (all STANDARD as written)', () => {
    for (const [name, bucket] of get().writer.buckets) {
      assertStorageClasses(
        scrape(),
        name,
        bucket.currentSizes.map((size) => ({ size, modifiedSeconds: 0 })),
      )
    }
  })
}
