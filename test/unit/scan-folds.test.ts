import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ALL_FOLDS, OPT_IN_BUCKET_GROUPS, scanFoldsOf } from '../../src/config/bucket-groups.js'
import { loadConfig } from '../../src/config/load.js'
import { UsageAccumulator } from '../../src/scanner/bucket-usage.js'
import { usageFromStats } from '../../src/scanner/sources/rgw/source.js'
import { parseBucketStatsList } from '../../src/scanner/sources/rgw/stats.js'
import { VersionListingFold } from '../../src/scanner/version-listing.js'

const NOW = 1_780_000_000_000
const DAY = 86_400_000

test('BUCKET_METRICS chooses the folds: an opt-in group is folded when named or with all', () => {
  const none = Object.fromEntries(OPT_IN_BUCKET_GROUPS.map((group) => [group, false]))
  assert.deepEqual(scanFoldsOf(''), none)
  assert.deepEqual(scanFoldsOf('default'), none)
  assert.deepEqual(scanFoldsOf('usage,sizes'), none)
  assert.deepEqual(scanFoldsOf('all'), ALL_FOLDS)
  assert.deepEqual(scanFoldsOf('default,hidden,prefixes'), { ...none, hidden: true, prefixes: true })
  assert.deepEqual(loadConfig({ BUCKET_METRICS: 'default,age' }, { dotenvPath: false }).SCAN_FOLDS, {
    ...none,
    age: true,
  })
})

test('ages off: no age bands and no storage class x age, every other figure as with them', () => {
  const fold = (ages: boolean) => {
    const accumulator = new UsageAccumulator({ storageClasses: true, nowMs: NOW, ages })
    accumulator.add(100, NOW - 2 * DAY, 'GLACIER')
    accumulator.add(7, NOW)
    return accumulator.finish()
  }
  const { ageBytes, ageObjects, storageClassAgeBytes, ...rest } = fold(true)
  assert.deepEqual(ageBytes, [7, 100, 0, 0, 0, 0, 0])
  assert.ok(ageObjects && storageClassAgeBytes)
  assert.deepEqual(fold(false), rest)
})

test('hidden off: a versioned listing keeps noncurrent bytes, drops noncurrent ages and expired markers', () => {
  const fold = (hidden: boolean) => {
    const listing = new VersionListingFold({ storageClasses: false, nowMs: NOW, hidden })
    listing.addPage(
      [
        { key: 'a', versionId: 'a2', isLatest: true, modifiedMs: NOW - DAY, size: 5 },
        { key: 'a', versionId: 'a1', isLatest: false, modifiedMs: NOW - 9 * DAY, size: 3 },
      ],
      [{ key: 'gone', versionId: 'g1', isLatest: true, modifiedMs: NOW }],
      undefined,
    )
    return listing.finish().versions
  }
  const versions = fold(true)
  assert.ok(versions)
  const { noncurrentAgeBytes, noncurrentAgeVersions, expiredDeleteMarkers, ...rest } = versions
  assert.deepEqual(noncurrentAgeBytes, [0, 3, 0, 0, 0, 0, 0])
  assert.equal(expiredDeleteMarkers, 1)
  assert.ok(noncurrentAgeVersions)
  assert.deepEqual(fold(false), rest)
  assert.equal(rest.noncurrentBytes, 3)
})

test('rgw: owner and tenant only with info, the index fill only with index', () => {
  const [stats] = parseBucketStatsList(
    JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'rgw', 'bucket-stats-all.json'), 'utf8'),
    ),
  )
  assert.ok(stats)
  const all = usageFromStats(stats)
  assert.ok(all.settings && all.index)
  const { settings, index, ...rest } = all
  assert.deepEqual(usageFromStats(stats, undefined, { info: false, index: false }), rest)
  assert.deepEqual(usageFromStats(stats, undefined, { info: true, index: false }), { ...rest, settings })
  assert.deepEqual(usageFromStats(stats, undefined, { info: false, index: true }), { ...rest, index })
})
