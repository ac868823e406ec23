import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { usageCollectorFamilies } from '../../src/collectors/usage-series.js'
import { BUCKET_GROUPS, DEFAULT_BUCKET_GROUPS } from '../../src/config/bucket-groups.js'
import { serverEnv } from '../../src/config/env/server.js'
import { loadConfig } from '../../src/config/load.js'
import { OTHER_BUCKET, type SeriesBudget } from '../../src/exposition/usage-budget.js'
import { seriesBudgetOf, UsageExposition } from '../../src/exposition/usage-exposition.js'
import { OBJECT_SIZE_BOUNDS } from '../../src/figures/sizes/ranges.js'
import type { ExpositionFormat } from '../../src/metrics/exposition/format.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { refusalLines } from '../support/config-refusal.js'
import { CapturedLogs } from '../support/exporter.js'
import { type ParsedExposition, type ParsedSample, parseExposition } from '../support/exposition.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

async function render(
  snapshot: UsageSnapshot,
  budget: SeriesBudget,
  exposition = new UsageExposition('objstore', { budget }),
  format: ExpositionFormat = 'text',
): Promise<ParsedExposition> {
  const block = await exposition.blockFor(snapshot)
  const parts: Buffer[] = []
  for await (const part of block.text(format)) parts.push(part)
  return parseExposition(Buffer.concat(parts).toString('utf8'))
}

const isBucketSample = (sample: ParsedSample) => sample.labels.bucket !== undefined
const clusterSamples = (parsed: ParsedExposition) =>
  parsed.samples.filter((sample) => !isBucketSample(sample))
const value = (parsed: ParsedExposition, name: string, bucket?: string) =>
  parsed.samples.find((sample) => sample.name === name && sample.labels.bucket === bucket)?.value

/** Series per bucket label in a rendering. */
function seriesPerBucket(parsed: ParsedExposition): Map<string, number> {
  const counts = new Map<string, number>()
  for (const { labels } of parsed.samples) {
    if (labels.bucket !== undefined) counts.set(labels.bucket, (counts.get(labels.bucket) ?? 0) + 1)
  }
  return counts
}

function bucket(name: string, bytes: number, sizes: readonly number[]): BucketRecord {
  const sizeHistogram = new Array<number>(OBJECT_SIZE_BOUNDS.length + 1).fill(0)
  for (const size of sizes) {
    const slot = OBJECT_SIZE_BOUNDS.findIndex((bound) => size <= bound)
    const index = slot < 0 ? OBJECT_SIZE_BOUNDS.length : slot
    sizeHistogram[index] = (sizeHistogram[index] ?? 0) + 1
  }
  return {
    name,
    scanSuccess: true,
    scanDurationSeconds: 1,
    lastSuccessSeconds: 1_700_000_000,
    usage: {
      bytes,
      objects: sizes.length,
      sizeHistogram,
      largestObjectBytes: Math.max(...sizes),
      newestModifiedSeconds: 1_700_000_000,
      oldestModifiedSeconds: 1_600_000_000,
      storageClassBytes: { STANDARD: bytes },
      versions: {
        versions: sizes.length + 1,
        deleteMarkers: 1,
        noncurrentBytes: 7,
        versionRanges: [1, 2, 0, 0, 0, 0, 0],
      },
      multipart: { incomplete: 2, oldestInitiatedSeconds: 1_650_000_000 },
      quotaBytes: 10_000,
      unreadableEntries: 1,
    },
  }
}

function snapshotOf(buckets: readonly BucketRecord[]): UsageSnapshot {
  return {
    sourceName: 'fs',
    sourceId: 'fs:/data',
    sourceUp: true,
    completedAtMs: 1_700_000_000_000,
    buckets: [...buckets].sort((a, b) => (a.name < b.name ? -1 : 1)),
  }
}

const NONE: SeriesBudget = { topN: 0, maxSeries: 0 }

/** The groups the per-bucket families name, in declaration order. */
function declaredGroups(): string[] {
  const groups = new Set<string>()
  for (const definition of Object.values(usageCollectorFamilies))
    if (definition.bucketGroup !== undefined) groups.add(definition.bucketGroup)
  return [...groups]
}

/** The groups the configuration writes for a BUCKET_METRICS value. */
const groupsOf = (value: string) => loadConfig({ BUCKET_METRICS: value }, { dotenvPath: false }).BUCKET_GROUPS

test('the families declare exactly the BUCKET_METRICS vocabulary the config checks; an unknown word is refused there', () => {
  const groups = [
    'usage',
    'versions',
    'quota',
    'sizes',
    'times',
    'storage_class',
    'multipart',
    'age',
    'hidden',
    'prefixes',
    'info',
    'index',
    'usage_log',
    'scan',
  ]
  assert.deepEqual(declaredGroups(), groups)
  assert.deepEqual(BUCKET_GROUPS, groups)
  assert.deepEqual(groupsOf('usage,scan,usage'), ['usage', 'scan'])
  assert.deepEqual(
    refusalLines(() => loadConfig({ BUCKET_METRICS: 'usage,ages' }, { dotenvPath: false })),
    [
      `BUCKET_METRICS: unknown group "ages"; expected a comma-separated list of ${groups.join(', ')}, default, all`,
    ],
  )
  const loaded = loadConfig({ BUCKET_METRICS: 'usage,scan', BUCKETS_TOP_N: '5' }, { dotenvPath: false })
  assert.deepEqual(seriesBudgetOf(loaded), { groups: ['usage', 'scan'], topN: 5, maxSeries: 0 })
})

test('an empty BUCKET_METRICS keeps the groups from before "where the bytes went"; all and default name sets', () => {
  const defaults = ['usage', 'versions', 'quota', 'sizes', 'times', 'storage_class', 'multipart', 'scan']
  assert.deepEqual(groupsOf(''), defaults)
  assert.deepEqual(DEFAULT_BUCKET_GROUPS, defaults)
  assert.deepEqual(groupsOf('default'), defaults)
  assert.deepEqual(groupsOf('all'), BUCKET_GROUPS)
  assert.deepEqual(groupsOf('prefixes,default,age'), [
    'usage',
    'versions',
    'quota',
    'sizes',
    'times',
    'storage_class',
    'multipart',
    'age',
    'prefixes',
    'scan',
  ])
  // The setting's description names the default groups: it must say what the code does.
  const description = String(serverEnv.BUCKET_METRICS.description)
  assert.ok(
    description.includes(`Empty or \`default\`: ${defaults.slice(0, -1).join(', ')} and scan;`),
    description,
  )
})

test('BUCKET_METRICS keeps only the per-bucket families of its groups; cluster families unchanged', async () => {
  const { snapshot } = generateSnapshot({ buckets: 20, objectsPerBucket: 30 })
  const all = await render(snapshot, NONE)
  const some = await render(snapshot, { groups: ['usage', 'scan'], topN: 0, maxSeries: 0 })
  assert.deepEqual(clusterSamples(some), clusterSamples(all))
  const names = new Set(some.samples.filter(isBucketSample).map((sample) => sample.name))
  assert.deepEqual([...names].sort(), [
    'objstore_bucket_ranges',
    'objstore_bucket_ranges_dirty',
    'objstore_bucket_ranges_oldest_listed_timestamp_seconds',
    'objstore_bucket_ranges_relisted_ratio',
    'objstore_bucket_scan_duration_seconds',
    'objstore_bucket_scan_last_success_timestamp_seconds',
    'objstore_bucket_scan_success',
    'objstore_bucket_scan_unreadable_entries',
    'objstore_bucket_usage_objects',
    'objstore_bucket_usage_total_bytes',
  ])
  const kept = all.samples.filter((sample) => isBucketSample(sample) && names.has(sample.name))
  assert.deepEqual(some.samples.filter(isBucketSample), kept)
})

test('BUCKETS_TOP_N sums the rest into _other (histograms too), leaves non-additive figures out', async () => {
  const sizes = { big: [5000, 6000], mid: [100, 200, 300], small: [1], [OTHER_BUCKET]: [10, 2_000_000] }
  const buckets = Object.entries(sizes).map(([name, list]) =>
    bucket(
      name,
      list.reduce((sum, size) => sum + size, 0),
      list,
    ),
  )
  const snapshot = snapshotOf(buckets)
  const all = await render(snapshot, NONE)
  const top = await render(snapshot, { topN: 1, maxSeries: 0 })
  assert.deepEqual(clusterSamples(top), clusterSamples(all))
  // The real `_other` is the largest but is folded, never itemised: `big` is the one bucket kept.
  assert.deepEqual([...seriesPerBucket(top).keys()].sort(), [OTHER_BUCKET, 'big'])
  assert.deepEqual(
    top.samples.filter((sample) => sample.labels.bucket === 'big'),
    all.samples.filter((sample) => sample.labels.bucket === 'big'),
  )
  const v = (name: string) => value(top, `objstore_${name}`, OTHER_BUCKET)
  assert.equal(v('bucket_usage_total_bytes'), 600 + 1 + 2_000_010)
  assert.equal(v('bucket_usage_objects'), 6)
  assert.equal(v('bucket_storage_class_bytes'), 600 + 1 + 2_000_010)
  assert.equal(v('bucket_usage_versions'), 9)
  assert.equal(v('bucket_usage_deletemarkers'), 3)
  assert.equal(v('bucket_noncurrent_bytes'), 21)
  assert.equal(v('bucket_multipart_uploads_incomplete'), 6)
  assert.equal(v('bucket_scan_unreadable_entries'), 3)
  assert.equal(v('bucket_object_size_bytes_sum'), 2_000_611)
  assert.equal(v('bucket_object_size_bytes_count'), 6)
  const le = (bound: string) =>
    top.samples.find(
      (s) =>
        s.name === 'objstore_bucket_object_size_bytes_bucket' &&
        s.labels.bucket === OTHER_BUCKET &&
        s.labels.le === bound,
    )?.value
  assert.equal(le('1024'), 5)
  assert.equal(le('4.194304e+06') ?? le('4194304'), 6)
  assert.equal(le('+Inf'), 6)
  for (const absent of [
    'bucket_largest_object_bytes',
    'bucket_newest_object_timestamp_seconds',
    'bucket_oldest_object_timestamp_seconds',
    'bucket_quota_total_bytes',
    'bucket_multipart_oldest_initiated_timestamp_seconds',
    'bucket_scan_success',
    'bucket_scan_duration_seconds',
    'bucket_scan_last_success_timestamp_seconds',
  ]) {
    assert.equal(v(absent), undefined, absent)
  }
  // No ceiling set: nothing about it is written.
  assert.equal(value(top, 'objstore_exporter_series_dropped'), undefined)
})

test('MAX_SERIES writes buckets largest first up to the ceiling, then counts and logs the rest', async () => {
  const buckets = [bucket('aaa', 10, [10]), bucket('bbb', 300, [100, 200]), bucket('ccc', 50, [50])]
  const snapshot = snapshotOf(buckets)
  const all = await render(snapshot, NONE)
  const perBucket = seriesPerBucket(all)
  const cluster = clusterSamples(all).length
  const bbb = perBucket.get('bbb') ?? 0
  const ccc = perBucket.get('ccc') ?? 0
  const aaa = perBucket.get('aaa') ?? 0
  const logs = new CapturedLogs()
  const maxSeries = cluster + bbb + ccc + aaa - 1
  const exposition = new UsageExposition('objstore', { budget: { topN: 0, maxSeries }, logger: pino(logs) })
  const capped = await render(snapshot, { topN: 0, maxSeries }, exposition)
  assert.deepEqual(
    seriesPerBucket(capped),
    new Map([
      ['bbb', bbb],
      ['ccc', ccc],
    ]),
  )
  assert.equal(value(capped, 'objstore_exporter_series_limit'), maxSeries)
  assert.equal(value(capped, 'objstore_exporter_series_dropped'), aaa)
  assert.equal(value(capped, 'objstore_exporter_buckets_dropped'), 1)
  assert.equal(value(capped, 'objstore_exporter_series_limit_hits_total'), 1)
  assert.equal(capped.samples.length - 4, cluster + bbb + ccc)
  // A second snapshot over the ceiling is counted, not logged again; one under it is logged once.
  const again = await render(snapshotOf([...buckets]), { topN: 0, maxSeries }, exposition)
  assert.equal(value(again, 'objstore_exporter_series_limit_hits_total'), 2)
  const under = await render(snapshotOf(buckets.slice(1)), { topN: 0, maxSeries }, exposition)
  assert.equal(value(under, 'objstore_exporter_series_dropped'), 0)
  assert.equal(value(under, 'objstore_exporter_series_limit_hits_total'), 2)
  assert.deepEqual(logs.messages(), [
    'MAX_SERIES reached: the smallest buckets are left out of the scrape',
    'series under MAX_SERIES again',
  ])
  assert.equal(logs.lines[0]?.droppedSeries, aaa)
  exposition.close()
})

test('on the worker (300 buckets) the ceiling keeps exactly the largest buckets that fit', async () => {
  const { snapshot } = generateSnapshot({ buckets: 300, objectsPerBucket: 5 })
  const all = await render(snapshot, NONE)
  const perBucket = seriesPerBucket(all)
  const cluster = clusterSamples(all).length
  const maxSeries = cluster + Math.floor(all.samples.filter(isBucketSample).length / 3)
  // The oracle: by bytes, largest first (ties by name, never-measured last), until one does not fit.
  const ranked = [...snapshot.buckets].sort(
    (a, b) => (b.usage?.bytes ?? -1) - (a.usage?.bytes ?? -1) || (a.name < b.name ? -1 : 1),
  )
  const expected = new Map<string, number>()
  let total = cluster
  for (const record of ranked) {
    const series = perBucket.get(record.name) ?? 0
    if (total + series > maxSeries) break
    total += series
    expected.set(record.name, series)
  }
  for (const format of ['text', 'openmetrics'] as const) {
    const capped = await render(snapshot, { topN: 0, maxSeries }, undefined, format)
    assert.deepEqual(seriesPerBucket(capped), expected)
    assert.equal(value(capped, 'objstore_exporter_buckets_dropped'), 300 - expected.size)
    assert.equal(value(capped, 'objstore_exporter_series_dropped'), all.samples.length - total)
  }
})
