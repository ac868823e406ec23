import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AGE_BANDS, ageSlot } from '../../src/figures/age-bands.js'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { mergeUsage } from '../../src/record/usage-sums.js'
import { type VersionEntry, VersionListingFold } from '../../src/record/version-listing.js'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1)

/** Per band name: the value of `counts` in that band. */
const byBand = (counts: readonly number[] | undefined) =>
  Object.fromEntries(AGE_BANDS.map((band, slot) => [band.name, counts?.[slot] ?? 0]))

test('age bands are disjoint, [previous bound, bound), measured against the given now', () => {
  const cases: Array<[number, string]> = [
    [-DAY, 'lt_1d'], // a clock ahead of ours
    [0, 'lt_1d'],
    [DAY - 1, 'lt_1d'],
    [DAY, 'lt_7d'],
    [7 * DAY - 1, 'lt_7d'],
    [7 * DAY, 'lt_30d'],
    [30 * DAY, 'lt_90d'],
    [90 * DAY - 1, 'lt_90d'],
    [90 * DAY, 'lt_180d'],
    [180 * DAY, 'lt_365d'],
    [365 * DAY - 1, 'lt_365d'],
    [365 * DAY, 'gte_365d'],
    [50 * 365 * DAY, 'gte_365d'],
  ]
  for (const [age, band] of cases) {
    assert.equal(AGE_BANDS[ageSlot(NOW, NOW - age)]?.name, band, `${age / DAY} days`)
  }
  assert.equal(AGE_BANDS[ageSlot(NOW, Number.NaN)]?.name, 'gte_365d', 'no time: the oldest band')
})

test('current objects fold into bytes and objects per age band, and per storage class x band', () => {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  fold.add({ size: 100, modifiedMs: NOW - 1000, storageClass: 'STANDARD' })
  fold.add({ size: 200, modifiedMs: NOW - DAY })
  fold.add({ size: 300, modifiedMs: NOW - 40 * DAY, storageClass: 'GLACIER' })
  fold.add({ size: 400, modifiedMs: NOW - 400 * DAY, storageClass: 'GLACIER' })
  const usage = fold.finish()
  assert.deepEqual(byBand(usage.ageBytes), {
    ...byBand([]),
    lt_1d: 100,
    lt_7d: 200,
    lt_90d: 300,
    gte_365d: 400,
  })
  assert.deepEqual(byBand(usage.ageObjects), { ...byBand([]), lt_1d: 1, lt_7d: 1, lt_90d: 1, gte_365d: 1 })
  assert.deepEqual(byBand(usage.storageClassAgeBytes?.STANDARD), { ...byBand([]), lt_1d: 100, lt_7d: 200 })
  assert.deepEqual(byBand(usage.storageClassAgeBytes?.GLACIER), { ...byBand([]), lt_90d: 300, gte_365d: 400 })
  const noClasses = new UsageAccumulator({ storageClasses: false, nowMs: NOW }).finish()
  assert.equal(noClasses.storageClassAgeBytes, undefined)
  assert.deepEqual(noClasses.ageBytes, new Array(AGE_BANDS.length).fill(0))
})

test('merging parts adds the age bands and the class x band records', () => {
  const whole = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  const left = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  const right = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  for (let index = 0; index < 40; index++) {
    const object = {
      size: index * 7,
      modifiedMs: NOW - index * 11 * DAY,
      storageClass: index % 3 ? 'STANDARD' : 'GLACIER',
    }
    whole.add(object)
    ;(index % 2 ? left : right).add(object)
  }
  assert.deepEqual(mergeUsage(left.finish(), right.finish()), whole.finish())
})

const version = (key: string, id: string, daysAgo: number, size: number, isLatest = false): VersionEntry => ({
  key,
  versionId: id,
  isLatest,
  modifiedMs: NOW - daysAgo * DAY,
  size,
})
const marker = (key: string, id: string, daysAgo: number, isLatest = false): VersionEntry => ({
  key,
  versionId: id,
  isLatest,
  modifiedMs: NOW - daysAgo * DAY,
})

test("a noncurrent version's age is the time since its successor was written, markers included", () => {
  const fold = new VersionListingFold({ storageClasses: true, nowMs: NOW })
  // a: v3 (latest, 2 days) <- v2 (written 10 days ago, replaced 2 days ago) <- v1 (replaced 10 days ago)
  // b: marker (latest, 100 days) <- v1 (written 400 days ago, noncurrent for 100 days)
  // c: only a delete marker: an expired object delete marker
  // The SDK's two lists, in any order within a key: the fold orders them itself.
  fold.addPage(
    [
      version('a', 'a1', 50, 1),
      version('a', 'a3', 2, 3, true),
      version('a', 'a2', 10, 2),
      version('b', 'b1', 400, 7),
    ],
    [marker('b', 'bm', 100, true), marker('c', 'cm', 5, true)],
    undefined,
  )
  const usage = fold.finish()
  assert.equal(usage.bytes, 3, 'current: a3 only')
  assert.equal(usage.objects, 1)
  assert.equal(usage.versions?.noncurrentBytes, 1 + 2 + 7)
  assert.deepEqual(byBand(usage.versions?.noncurrentAgeBytes), {
    ...byBand([]),
    lt_7d: 2,
    lt_30d: 1,
    lt_180d: 7,
  })
  assert.deepEqual(byBand(usage.versions?.noncurrentAgeVersions), {
    ...byBand([]),
    lt_7d: 1,
    lt_30d: 1,
    lt_180d: 1,
  })
  assert.equal(usage.versions?.expiredDeleteMarkers, 1)
  assert.equal(usage.versions?.deleteMarkers, 2)
  assert.equal(usage.versions?.versions, 6)
})

test('a key straddling pages keeps its successor time and its entry count across the page break', () => {
  const fold = new VersionListingFold({ storageClasses: false, nowMs: NOW })
  // Key k: marker (latest, 3 days ago) | next page: v2 (20 days), v1 (200 days). Key m: one marker,
  // cut at the page break: counted as expired only once its next page shows nothing behind it.
  fold.addPage([], [marker('k', 'km', 3, true)], 'k')
  fold.addPage([version('k', 'k2', 20, 10), version('k', 'k1', 200, 100)], [marker('m', 'mm', 1, true)], 'm')
  fold.addPage([version('m', 'm1', 30, 5)], [], undefined)
  const usage = fold.finish()
  assert.deepEqual(byBand(usage.versions?.noncurrentAgeBytes), { ...byBand([]), lt_7d: 10 + 5, lt_30d: 100 })
  assert.equal(usage.versions?.expiredDeleteMarkers, 0, 'both markers have versions behind them')
  assert.equal(usage.objects, 0)

  const cut = new VersionListingFold({ storageClasses: false, nowMs: NOW })
  cut.addPage([], [marker('z', 'zm', 1, true)], 'z')
  cut.addPage([], [], undefined)
  assert.equal(cut.finish().versions?.expiredDeleteMarkers, 1, 'nothing followed: expired')
})

test('an unversioned null version and a key written twice in one millisecond', () => {
  const fold = new VersionListingFold({ storageClasses: false, nowMs: NOW })
  fold.addPage(
    [
      { key: 'n', versionId: 'null', isLatest: true, modifiedMs: NOW - DAY, size: 1 },
      version('t', 't2', 9, 20, true),
      version('t', 't1', 9, 10),
    ],
    [],
    undefined,
  )
  const usage = fold.finish()
  assert.equal(usage.versions?.versionRanges[0], 1, 'n: UNVERSIONED')
  assert.deepEqual(byBand(usage.versions?.noncurrentAgeBytes), { ...byBand([]), lt_30d: 10 })
  assert.deepEqual(byBand(usage.ageBytes), { ...byBand([]), lt_7d: 1, lt_30d: 20 })
})
