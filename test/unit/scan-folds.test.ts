import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ALL_FOLDS, OPT_IN_BUCKET_GROUPS, scanFoldsOf } from '../../src/config/bucket-groups.js'
import {
  GROUP_VARIABLES,
  type GroupNotGiven,
  groupNotGivenWarning,
  type UnusedGroupSettings,
  unusedGroupWarning,
} from '../../src/config/group-settings.js'
import { loadConfig, loadConfiguration } from '../../src/config/load.js'
import { envSchema } from '../../src/config/schema.js'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { VersionListingFold } from '../../src/record/version-listing.js'
import { usageFromStats } from '../../src/sources/rgw/source.js'
import { parseBucketStatsList } from '../../src/sources/rgw/stats.js'

const NOW = 1_780_000_000_000
const DAY = 86_400_000

test('BUCKET_METRICS chooses the folds: an opt-in group is folded when named or with all, multipart unless left out', () => {
  const none = {
    ...Object.fromEntries(OPT_IN_BUCKET_GROUPS.map((group) => [group, false])),
    multipart: false,
  }
  const defaults = { ...none, multipart: true }
  assert.deepEqual(scanFoldsOf(''), defaults)
  assert.deepEqual(scanFoldsOf('default'), defaults)
  assert.deepEqual(scanFoldsOf('usage,sizes'), none)
  assert.deepEqual(scanFoldsOf('usage,multipart'), defaults)
  assert.deepEqual(scanFoldsOf('all'), ALL_FOLDS)
  assert.deepEqual(scanFoldsOf('default,hidden,prefixes'), { ...defaults, hidden: true, prefixes: true })
  assert.deepEqual(loadConfig({ BUCKET_METRICS: 'default,age' }, { dotenvPath: false }).SCAN_FOLDS, {
    ...defaults,
    age: true,
  })
})

test('ages off: no age bands and no storage class x age, every other figure as with them', () => {
  const fold = (ages: boolean) => {
    const accumulator = new UsageAccumulator({ storageClasses: true, nowMs: NOW, ages })
    accumulator.add({ size: 100, modifiedMs: NOW - 2 * DAY, storageClass: 'GLACIER' })
    accumulator.add({ size: 7, modifiedMs: NOW })
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

test('variables of an opt-in group that is off are named, by group; their off values and other sources are not', () => {
  for (const { variable } of Object.values(GROUP_VARIABLES).flat())
    assert.ok(variable in envSchema.properties, `${variable} is a variable`)
  const unused = (env: Record<string, string>) =>
    loadConfiguration({ BUCKETS_SOURCE: 's3', ...env }, { dotenvPath: false }).unusedGroupSettings
  const env = {
    PREFIX_TOP_K: '5',
    S3_BUCKET_SETTINGS: 'true',
    BUCKET_TAG_LABELS: 'team',
    MULTIPART_STALE_DAYS: '3',
  }
  assert.deepEqual(unused(env), [
    { group: 'hidden', variables: ['MULTIPART_STALE_DAYS'] },
    { group: 'prefixes', variables: ['PREFIX_TOP_K'] },
    { group: 'info', variables: ['S3_BUCKET_SETTINGS', 'BUCKET_TAG_LABELS'] },
  ])
  assert.deepEqual(unused({ ...env, BUCKET_METRICS: 'all' }), [])
  assert.deepEqual(unused({ ...env, BUCKET_METRICS: 'default,info,hidden' }), [
    { group: 'prefixes', variables: ['PREFIX_TOP_K'] },
  ])
  assert.deepEqual(unused({ S3_BUCKET_SETTINGS: 'false', PREFIX_DEPTH: '0' }), [])
  // rgw reads no S3_BUCKET_SETTINGS: the other-source warning names it, not this one.
  assert.deepEqual(
    unused({ BUCKETS_SOURCE: 'rgw', S3_ENDPOINT: 'http://127.0.0.1:1', S3_BUCKET_SETTINGS: 'true' }),
    [],
  )
  assert.equal(
    unusedGroupWarning(
      { group: 'info', variables: ['BUCKET_TAG_LABELS'] },
      { BUCKETS_SOURCE: 's3', BUCKET_METRICS: '' },
    ),
    'BUCKET_TAG_LABELS set, but BUCKET_METRICS leaves out the info group, so nothing reads it: add info (BUCKET_METRICS=default,info) or remove it',
  )
})

test('a group the source cannot give: its variables are named whatever BUCKET_METRICS says, and naming it is too', () => {
  const rgw = (env: Record<string, string>) =>
    loadConfiguration(
      { BUCKETS_SOURCE: 'rgw', S3_ENDPOINT: 'http://127.0.0.1:1', ...env },
      { dotenvPath: false },
    )
  // Adding prefixes to BUCKET_METRICS would not help: rgw lists no keys.
  for (const BUCKET_METRICS of ['', 'all', 'default,prefixes']) {
    const loaded = rgw({ PREFIX_DEPTH: '2', BUCKET_METRICS })
    assert.deepEqual(loaded.unusedGroupSettings, [
      { group: 'prefixes', variables: ['PREFIX_DEPTH'], notGiven: 'it reads counters and lists no keys' },
    ])
    assert.equal(
      unusedGroupWarning(loaded.unusedGroupSettings[0] as UnusedGroupSettings, loaded.config),
      'PREFIX_DEPTH set, but BUCKETS_SOURCE=rgw gives no prefixes figures (it reads counters and lists no keys), so nothing reads it: remove it',
    )
  }
  // Named, a group the source cannot give is said; `all` means what the source gives.
  const named = rgw({ BUCKET_METRICS: 'default,age,index' })
  assert.deepEqual(named.groupsNotGiven, [
    { group: 'age', reason: 'it reads counters and lists no keys, so it sees no object dates' },
  ])
  assert.equal(
    groupNotGivenWarning(named.groupsNotGiven[0] as GroupNotGiven, 'rgw'),
    'BUCKET_METRICS names age, but BUCKETS_SOURCE=rgw gives none of its figures (it reads counters and lists no keys, so it sees no object dates): its families stay empty',
  )
  assert.deepEqual(rgw({ BUCKET_METRICS: 'all' }).groupsNotGiven, [])
  const fs = loadConfiguration({ BUCKET_METRICS: 'usage,hidden,usage_log,prefixes' }, { dotenvPath: false })
  assert.deepEqual(
    fs.groupsNotGiven.map(({ group }) => group),
    ['hidden', 'usage_log'],
  )
  const s3 = loadConfiguration(
    { BUCKETS_SOURCE: 's3', BUCKET_METRICS: 'index,hidden,info' },
    { dotenvPath: false },
  )
  assert.deepEqual(
    s3.groupsNotGiven.map(({ group }) => group),
    ['index'],
  )
})
