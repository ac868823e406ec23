import assert from 'node:assert/strict'
import { findSamples, type ParsedExposition, sampleValue } from './exposition.js'

/**
 * What a scrape must show for a bucket, computed here from the objects a test wrote, independently
 * of the exporter's code: MinIO's size intervals as MinIO's source writes them (inclusive
 * [start, end]), Prometheus `le` semantics (size <= bound), sums and extremes.
 */

const KIB = 1024
const MIB = 1024 * KIB

export const MINIO_SIZE_INTERVALS: ReadonlyArray<readonly [string, number, number]> = [
  ['LESS_THAN_1024_B', 0, KIB - 1],
  ['BETWEEN_1024_B_AND_64_KB', KIB, 64 * KIB - 1],
  ['BETWEEN_64_KB_AND_256_KB', 64 * KIB, 256 * KIB - 1],
  ['BETWEEN_256_KB_AND_512_KB', 256 * KIB, 512 * KIB - 1],
  ['BETWEEN_512_KB_AND_1_MB', 512 * KIB, MIB - 1],
  ['BETWEEN_1024B_AND_1_MB', KIB, MIB - 1],
  ['BETWEEN_1_MB_AND_10_MB', MIB, 10 * MIB - 1],
  ['BETWEEN_10_MB_AND_64_MB', 10 * MIB, 64 * MIB - 1],
  ['BETWEEN_64_MB_AND_128_MB', 64 * MIB, 128 * MIB - 1],
  ['BETWEEN_128_MB_AND_512_MB', 128 * MIB, 512 * MIB - 1],
  ['GREATER_THAN_512_MB', 512 * MIB, Number.MAX_SAFE_INTEGER],
]

/** The documented histogram bounds: 1 KiB x 4^k, k = 0..14. */
export const HISTOGRAM_BOUNDS = Array.from({ length: 15 }, (_, k) => KIB * 4 ** k)

export interface WrittenObject {
  readonly size: number
  /** Last-modified time, whole seconds since the epoch. */
  readonly modifiedSeconds: number
  readonly storageClass?: string
}

/** Asserts every usage figure of `bucket` in `scrape` against the objects written into it. */
export function assertBucketUsage(
  scrape: ParsedExposition,
  bucket: string,
  objects: readonly WrittenObject[],
  namespace = 'objstore',
): void {
  const ns = (name: string) => `${namespace}_${name}`
  const bytes = objects.reduce((sum, object) => sum + object.size, 0)
  const at = `bucket ${bucket}`
  assert.equal(sampleValue(scrape, ns('bucket_usage_total_bytes'), { bucket }), bytes, `${at}: bytes`)
  assert.equal(sampleValue(scrape, ns('bucket_usage_objects'), { bucket }), objects.length, `${at}: objects`)
  for (const [range, start, end] of MINIO_SIZE_INTERVALS) {
    const count = objects.filter((object) => object.size >= start && object.size <= end).length
    assert.equal(
      sampleValue(scrape, ns('bucket_objects_size_distribution'), { bucket, range }),
      count,
      `${at}: range ${range}`,
    )
  }
  assert.equal(
    findSamples(scrape, ns('bucket_objects_size_distribution'), { bucket }).length,
    11,
    `${at}: 11 ranges`,
  )
  for (const bound of HISTOGRAM_BOUNDS) {
    const count = objects.filter((object) => object.size <= bound).length
    assert.equal(
      sampleValue(scrape, ns('bucket_object_size_bytes_bucket'), { bucket, le: String(bound) }),
      count,
      `${at}: le=${bound}`,
    )
  }
  assert.equal(
    sampleValue(scrape, ns('bucket_object_size_bytes_bucket'), { bucket, le: '+Inf' }),
    objects.length,
  )
  assert.equal(
    findSamples(scrape, ns('bucket_object_size_bytes_bucket'), { bucket }).length,
    16,
    `${at}: 16 le`,
  )
  assert.equal(sampleValue(scrape, ns('bucket_object_size_bytes_sum'), { bucket }), bytes, `${at}: _sum`)
  assert.equal(
    sampleValue(scrape, ns('bucket_object_size_bytes_count'), { bucket }),
    objects.length,
    `${at}: _count`,
  )
  const times = objects.map((object) => object.modifiedSeconds)
  const newest = findSamples(scrape, ns('bucket_newest_object_timestamp_seconds'), { bucket })
  const oldest = findSamples(scrape, ns('bucket_oldest_object_timestamp_seconds'), { bucket })
  const largest = findSamples(scrape, ns('bucket_largest_object_bytes'), { bucket })
  if (objects.length === 0) {
    assert.equal(
      newest.length + oldest.length + largest.length,
      0,
      `${at}: no object, no newest/oldest/largest`,
    )
  } else {
    assert.equal(newest[0]?.value, Math.max(...times), `${at}: newest`)
    assert.equal(oldest[0]?.value, Math.min(...times), `${at}: oldest`)
    assert.equal(largest[0]?.value, Math.max(...objects.map((object) => object.size)), `${at}: largest`)
  }
}

/** The documented age bands: name and upper bound in days (the last open). */
export const AGE_BAND_DAYS: ReadonlyArray<readonly [string, number]> = [
  ['lt_1d', 1],
  ['lt_7d', 7],
  ['lt_30d', 30],
  ['lt_90d', 90],
  ['lt_180d', 180],
  ['lt_365d', 365],
  ['gte_365d', Number.POSITIVE_INFINITY],
]

/** The band of something `ageSeconds` old: the first whose bound it is under. */
function ageBand(ageSeconds: number): string {
  return (AGE_BAND_DAYS.find(([, days]) => ageSeconds < days * 86_400) ?? AGE_BAND_DAYS[6])?.[0] ?? ''
}

/**
 * Bytes and objects per age band (`bucket_age_bytes`, `bucket_age_objects`) against the objects
 * written. The scan's start is not known here, only that it was within the last `withinSeconds`:
 * every band is checked exactly when no object is that close to a band's edge (the usual case),
 * and the bands' sums always.
 */
export function assertAgeBands(
  scrape: ParsedExposition,
  bucket: string,
  objects: readonly WrittenObject[],
  options: { namespace?: string; withinSeconds?: number } = {},
): void {
  const ns = (name: string) => `${options.namespace ?? 'objstore'}_${name}`
  const now = Date.now() / 1000
  const earliest = now - (options.withinSeconds ?? 600)
  const at = `bucket ${bucket}`
  const bands = (family: string) =>
    Object.fromEntries(
      findSamples(scrape, ns(family), { bucket }).map((sample) => [sample.labels.age, sample.value]),
    )
  const bytes = bands('bucket_age_bytes')
  const counts = bands('bucket_age_objects')
  assert.deepEqual(
    Object.keys(bytes),
    AGE_BAND_DAYS.map(([name]) => name),
    `${at}: every band, in order`,
  )
  const sum = (values: Record<string, number>) =>
    Object.values(values).reduce((total, value) => total + value, 0)
  assert.equal(
    sum(bytes),
    objects.reduce((total, object) => total + object.size, 0),
    `${at}: age bytes sum`,
  )
  assert.equal(sum(counts), objects.length, `${at}: age objects sum`)
  const known = objects.every(
    (object) => ageBand(earliest - object.modifiedSeconds) === ageBand(now - object.modifiedSeconds),
  )
  if (!known) return
  const expected = Object.fromEntries(AGE_BAND_DAYS.map(([name]) => [name, { bytes: 0, objects: 0 }]))
  for (const object of objects) {
    const band = expected[ageBand(now - object.modifiedSeconds)] as { bytes: number; objects: number }
    band.bytes += object.size
    band.objects++
  }
  for (const [name, band] of Object.entries(expected)) {
    assert.equal(bytes[name], band.bytes, `${at}: age ${name} bytes`)
    assert.equal(counts[name], band.objects, `${at}: age ${name} objects`)
  }
}

/** Bytes per storage class, as `bucket_storage_class_bytes` must show them. */
export function assertStorageClasses(
  scrape: ParsedExposition,
  bucket: string,
  objects: readonly WrittenObject[],
  namespace = 'objstore',
): void {
  const expected = new Map<string, number>()
  for (const object of objects) {
    const storageClass = object.storageClass ?? 'STANDARD'
    expected.set(storageClass, (expected.get(storageClass) ?? 0) + object.size)
  }
  const shown = findSamples(scrape, `${namespace}_bucket_storage_class_bytes`, { bucket })
  assert.deepEqual(
    new Map(shown.map((sample) => [sample.labels.storage_class, sample.value])),
    expected,
    `bucket ${bucket}: bytes per storage class`,
  )
}

/** The buckets that have any series in the scrape, sorted. */
export function bucketsIn(scrape: ParsedExposition, namespace = 'objstore'): string[] {
  const names = new Set<string>()
  for (const sample of scrape.samples) {
    if (sample.name.startsWith(`${namespace}_bucket_`) && sample.labels.bucket !== undefined) {
      names.add(sample.labels.bucket)
    }
  }
  return [...names].sort()
}
