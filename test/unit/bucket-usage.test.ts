import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MINIO_SIZE_RANGES, OBJECT_SIZE_BOUNDS } from '../../src/figures/sizes/ranges.js'
import { MINIO_VERSION_RANGES } from '../../src/figures/versions/ranges.js'
import { FigureBeyondLimit, UsageAccumulator } from '../../src/record/bucket-usage.js'
import { mergeUsage } from '../../src/record/usage-sums.js'
import { MINIO_SIZE_INTERVALS } from '../support/usage-expectations.js'

const MIB = 1024 * 1024
/** The scan's start the folds measure ages against. */
const NOW_MS = 2_000_000_000_000

/** MinIO's disjoint intervals (its 1 KiB-1 MiB aggregate is added only when rendering). */
const MINIO_INTERVALS = MINIO_SIZE_INTERVALS.filter(([name]) => name !== 'BETWEEN_1024B_AND_1_MB')

const SIZES = [
  0,
  1,
  1023,
  1024,
  1025,
  4096,
  65535,
  65536,
  262143,
  262144,
  524288,
  MIB - 1,
  MIB,
  10 * MIB,
  64 * MIB,
  128 * MIB - 1,
  512 * MIB,
  5 * 1024 ** 4,
]

test('sizes fall in MinIO ranges by MinIO inclusive bounds, and in le buckets by Prometheus <= bounds', () => {
  const fold = new UsageAccumulator({ storageClasses: false, nowMs: NOW_MS })
  for (const size of SIZES) fold.add({ size, modifiedMs: 1_000_000 })
  const usage = fold.finish()
  assert.equal(usage.objects, SIZES.length)
  assert.equal(
    usage.bytes,
    SIZES.reduce((sum, size) => sum + size, 0),
  )
  assert.deepEqual(
    MINIO_SIZE_RANGES.map((range) => range.name),
    MINIO_INTERVALS.map(([name]) => name),
  )
  assert.deepEqual(
    usage.sizeRanges,
    MINIO_INTERVALS.map(([, start, end]) => SIZES.filter((size) => size >= start && size <= end).length),
  )
  // Non-cumulative: slot i holds sizes in (bound[i-1], bound[i]]; the last slot is above every bound.
  const expected = OBJECT_SIZE_BOUNDS.map(
    (bound, slot) =>
      SIZES.filter((size) => size <= bound && (slot === 0 || size > (OBJECT_SIZE_BOUNDS[slot - 1] ?? 0)))
        .length,
  )
  expected.push(SIZES.filter((size) => size > (OBJECT_SIZE_BOUNDS.at(-1) ?? 0)).length)
  assert.deepEqual(usage.sizeHistogram, expected)
  assert.equal(usage.storageClassBytes, undefined, 'a filesystem has no storage classes')
})

test('histogram bounds are 1 KiB x 4^k up to 256 GiB', () => {
  assert.equal(OBJECT_SIZE_BOUNDS.length, 15)
  assert.equal(OBJECT_SIZE_BOUNDS[0], 1024)
  assert.equal(OBJECT_SIZE_BOUNDS.at(-1), 256 * 1024 ** 3)
  assert.deepEqual(
    OBJECT_SIZE_BOUNDS,
    Array.from({ length: 15 }, (_, k) => 1024 * 4 ** k),
  )
})

test('largest object, newest and oldest modification times; storage classes, the default as STANDARD', () => {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
  fold.add({ size: 10, modifiedMs: 5_000, storageClass: 'STANDARD' })
  fold.add({ size: 20, modifiedMs: 9_000 })
  fold.add({ size: 30, modifiedMs: 1_000, storageClass: 'GLACIER' })
  const usage = fold.finish()
  assert.equal(usage.newestModifiedSeconds, 9)
  assert.equal(usage.oldestModifiedSeconds, 1)
  assert.equal(usage.largestObjectBytes, 30)
  assert.deepEqual(usage.storageClassBytes, { STANDARD: 30, GLACIER: 30 })
  const empty = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS }).finish()
  assert.equal(empty.newestModifiedSeconds, undefined, 'no objects, no newest object')
  assert.equal(empty.largestObjectBytes, undefined, 'no objects, no largest object')
  assert.deepEqual(empty.storageClassBytes, {})
})

test('merging two parts of a bucket equals folding them together', () => {
  const whole = new UsageAccumulator({ storageClasses: false, nowMs: NOW_MS })
  const left = new UsageAccumulator({ storageClasses: false, nowMs: NOW_MS })
  const right = new UsageAccumulator({ storageClasses: false, nowMs: NOW_MS })
  SIZES.forEach((size, index) => {
    whole.add({ size, modifiedMs: index * 1000 })
    ;(index % 2 ? left : right).add({ size, modifiedMs: index * 1000 })
  })
  assert.deepEqual(mergeUsage(left.finish(), right.finish()), whole.finish())
})

/** A fold of a versioned listing: every entry is added, each key's together, newest first. */
const versionedFold = () => new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS, versions: true })

test('version counts per key land in MinIO version ranges; only a null version is UNVERSIONED', () => {
  const fold = versionedFold()
  const keys: Array<[number, boolean]> = [
    [1, true],
    [1, false],
    [2, false],
    [9, false],
    [10, false],
    [999, false],
    [1000, false],
    [10_000, false],
  ]
  keys.forEach(([entries, onlyNull], index) => {
    for (let entry = 0; entry < entries; entry++) {
      const versionId = onlyNull ? 'null' : `v${entry}`
      fold.add({ key: `k${index}`, versionId, isLatest: entry === 0, size: 0, modifiedMs: 1000 })
    }
  })
  const usage = fold.finish().versions
  assert.deepEqual(
    Object.fromEntries(MINIO_VERSION_RANGES.map((range, slot) => [range.name, usage?.versionRanges[slot]])),
    {
      UNVERSIONED: 1,
      SINGLE_VERSION: 1,
      BETWEEN_2_AND_10: 2,
      BETWEEN_10_AND_100: 1,
      BETWEEN_100_AND_1000: 1,
      BETWEEN_1000_AND_10000: 1,
      GREATER_THAN_10000: 1,
    },
  )
  const counted = versionedFold()
  counted.add({ key: 'a', versionId: 'v2', isLatest: true, size: 5, modifiedMs: 2000 })
  counted.add({ key: 'a', versionId: 'v1', isLatest: false, size: 7, modifiedMs: 1000, replacedMs: 2000 })
  counted.add({ key: 'b', versionId: 'v3', isLatest: true, isDeleteMarker: true, size: 0, modifiedMs: 3000 })
  const figures = counted.finish()
  assert.equal(figures.versions?.versions, 3, 'delete markers count as versions, as in MinIO')
  assert.equal(figures.versions?.deleteMarkers, 1)
  assert.equal(figures.versions?.noncurrentBytes, 7)
  assert.equal(figures.versions?.expiredDeleteMarkers, 1, 'b: only a delete marker')
  assert.equal(figures.objects, 1, 'the current objects: the latest version of a')
  assert.equal(figures.bytes, 5)
  assert.equal(new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS }).finish().versions, undefined)
})

test('a size that is not a byte count never enters the figures: NaN, Infinity, -1, 1.5, 2^53', () => {
  for (const size of [Number.NaN, Number.POSITIVE_INFINITY, -1, 1.5, 2 ** 53]) {
    const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
    fold.add({ size: 10, modifiedMs: 1000 })
    assert.throws(() => fold.add({ size, modifiedMs: 2000 }), RangeError, String(size))
    assert.throws(
      () => versionedFold().add({ key: 'k', isLatest: false, size, modifiedMs: 1000 }),
      RangeError,
    )
    // What was folded before is untouched (and finite).
    assert.equal(fold.finish().bytes, 10)
    assert.equal(fold.finish().objects, 1)
  }
})

test('a bucket whose bytes pass 2^53 - 1 fails naming the limit; up to it the figures are exact', () => {
  const LIMIT = Number.MAX_SAFE_INTEGER
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW_MS })
  fold.add({ size: LIMIT - 1, modifiedMs: 1000 })
  fold.add({ size: 1, modifiedMs: 1000 })
  assert.equal(fold.finish().bytes, LIMIT)
  assert.throws(() => fold.add({ size: 1, modifiedMs: 1000 }), FigureBeyondLimit)
  assert.throws(
    () => fold.add({ size: 1, modifiedMs: 1000 }),
    /the bucket's bytes pass 2\^53 - 1 \(9007199254740991 bytes/,
  )
  assert.equal(fold.finish().bytes, LIMIT, 'what was folded stays')
  assert.throws(
    () =>
      new UsageAccumulator({ storageClasses: false, nowMs: NOW_MS }).add({ size: 2 ** 62, modifiedMs: 1000 }),
    /^RangeError: object size 4611686018427387904 bytes is beyond 2\^53 - 1 /,
  )
  const versions = versionedFold()
  versions.add({ key: 'k', isLatest: false, size: LIMIT, modifiedMs: 1000, replacedMs: 1000 })
  assert.throws(
    () => versions.add({ key: 'k', isLatest: false, size: 1, modifiedMs: 1000, replacedMs: 1000 }),
    /noncurrent bytes pass/,
  )
  // Two parts of one bucket (the fs walk's threads, a listing's key ranges) the same way.
  const half = { bytes: 2 ** 52, objects: 1 }
  assert.equal(mergeUsage(half, { bytes: 2 ** 52 - 1, objects: 1 }).bytes, LIMIT)
  assert.throws(() => mergeUsage(half, half), FigureBeyondLimit)
})
