import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, test } from 'node:test'
import { usageCollectorFamilies } from '../../src/collectors/usage-series.js'
import { OPT_IN_BUCKET_GROUPS } from '../../src/config/bucket-groups.js'
import { OTHER_BUCKET } from '../../src/exposition/usage-budget.js'
import { OBJECT_SIZE_BOUNDS } from '../../src/figures/sizes/ranges.js'
import type { BucketRecord } from '../../src/snapshot/snapshot.js'
import { saveState } from '../../src/snapshot/state-file.js'
import { startExporter } from '../support/exporter.js'
import { type ParsedExposition, parseExposition } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { type GeneratedSnapshot, generateSnapshot } from '../support/usage-snapshots.js'

/*
 * The series budget at 10,000 buckets, through the whole exporter (state file, render worker,
 * HTTP): the series a scrape carries per setting, counted exactly.
 */

const BUCKETS = 10_000
let folder: string
let data: string
let stateFile: string
let generated: GeneratedSnapshot

before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'objstore-series-budget-'))
  data = join(folder, 'data')
  await mkdir(data)
  generated = generateSnapshot({
    buckets: BUCKETS,
    objectsPerBucket: 3,
    sourceName: 'fs',
    sourceId: `fs:${resolve(data)}`,
    completedAtMs: Date.now(),
  })
  stateFile = join(folder, 'state.json')
  await saveState(stateFile, generated.snapshot)
})

after(() => rm(folder, { recursive: true, force: true }))

async function scrapeWith(
  env: Record<string, string>,
  accept = 'text/plain',
): Promise<{ parsed: ParsedExposition; body: string; logs: string[] }> {
  const exporter = await startExporter({
    DATA_DIR: data,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
    ...env,
  })
  try {
    const response = await fetch(`${exporter.baseUrl}/metrics`, { headers: { accept } })
    assert.equal(response.status, 200)
    const body = await response.text()
    return { parsed: parseExposition(body), body, logs: exporter.logs.messages() }
  } finally {
    await exporter.close()
  }
}

/** Buckets of the generated snapshot with a count of empty objects: each has one more series. */
const withEmptyObjects = () =>
  generated.snapshot.buckets.filter((record) => record.usage?.emptyObjects !== undefined).length
/** Buckets of the generated snapshot kept as per-range subtotals: each has 4 more series (scan). */
const RANGE_FAMILIES = 4
const withRanges = () =>
  generated.snapshot.buckets.filter((record) => record.ranges !== undefined).length * RANGE_FAMILIES

const perBucket = (parsed: ParsedExposition) =>
  parsed.samples.filter((sample) => sample.labels.bucket !== undefined)
const bucketsOf = (parsed: ParsedExposition) =>
  new Set(perBucket(parsed).map((sample) => sample.labels.bucket))
const clusterOf = (parsed: ParsedExposition) =>
  parsed.samples
    .filter((sample) => /^objstore_cluster_(usage|bucket|objects)_/.test(sample.name))
    .map(({ name, labels, value }) => ({ name, labels, value }))

let full: ParsedExposition

test('defaults: every bucket, the groups from before "where the bytes went" (some 500,000 series)', async () => {
  full = (await scrapeWith({})).parsed
  assert.equal(bucketsOf(full).size, BUCKETS)
  // 510,771 before bucket_empty_objects, one more series for each bucket that counts them.
  assert.equal(perBucket(full).length, 510_771 + withEmptyObjects() + withRanges())
  assert.ok(!full.samples.some((sample) => sample.name.startsWith('objstore_exporter_series')))
  const optIn = new Set(
    Object.values(usageCollectorFamilies)
      .filter((definition) =>
        (OPT_IN_BUCKET_GROUPS as readonly string[]).includes(definition.bucketGroup ?? ''),
      )
      .map((definition) => `objstore_${definition.name}`),
  )
  assert.deepEqual(
    full.samples.filter((sample) => optIn.has(sample.name.replace(/_(bucket|sum|count)$/, ''))),
    [],
    'no opt-in family by default',
  )
})

test('BUCKET_METRICS=all: every group (some 1,000,000 series at 10,000 buckets)', async () => {
  const { parsed } = await scrapeWith({ BUCKET_METRICS: 'all' })
  assert.equal(bucketsOf(parsed).size, BUCKETS)
  assert.equal(perBucket(parsed).length, 1_010_859 + withEmptyObjects() + withRanges())
  assert.deepEqual(clusterOf(parsed), clusterOf(full))
})

test('BUCKET_METRICS=usage: two series per measured bucket, cluster figures unchanged', async () => {
  const { parsed } = await scrapeWith({ BUCKET_METRICS: 'usage' })
  const measured = generated.snapshot.buckets.filter((record) => record.usage).length
  assert.equal(perBucket(parsed).length, 2 * measured)
  assert.deepEqual(clusterOf(parsed), clusterOf(full))
})

test('BUCKETS_TOP_N=100: 100 buckets and _other; the sums and cluster totals unchanged', async () => {
  const { parsed } = await scrapeWith({ BUCKETS_TOP_N: '100', BUCKET_METRICS: 'usage,sizes,scan' })
  const buckets = bucketsOf(parsed)
  assert.equal(buckets.size, 101)
  assert.ok(buckets.has(OTHER_BUCKET))
  const largest = [...generated.snapshot.buckets]
    .sort((a, b) => (b.usage?.bytes ?? -1) - (a.usage?.bytes ?? -1) || (a.name < b.name ? -1 : 1))
    .slice(0, 100)
  assert.deepEqual(
    [...buckets].filter((name) => name !== OTHER_BUCKET).sort(),
    largest.map((r) => r.name).sort(),
  )
  const sum = (which: ParsedExposition, name: string) =>
    which.samples.filter((sample) => sample.name === name).reduce((total, sample) => total + sample.value, 0)
  for (const name of [
    'objstore_bucket_usage_total_bytes',
    'objstore_bucket_usage_objects',
    'objstore_bucket_object_size_bytes_count',
  ]) {
    assert.equal(sum(parsed, name), sum(full, name), name)
  }
  assert.deepEqual(clusterOf(parsed), clusterOf(full))
  // Itemised: 2 usage + 11 ranges + the histogram's bounds, +Inf, _sum, _count + largest, and
  // the scan health each has; _other: the additive ones only (no largest, no scan success,
  // duration or last success).
  const histogram = OBJECT_SIZE_BOUNDS.length + 3
  const scanHealth = (record: BucketRecord) =>
    2 +
    (record.lastSuccessSeconds !== undefined ? 1 : 0) +
    (record.usage?.unreadableEntries !== undefined ? 1 : 0) +
    (record.ranges !== undefined ? RANGE_FAMILIES : 0)
  const empty = (record: BucketRecord) => (record.usage?.emptyObjects !== undefined ? 1 : 0)
  const itemised = largest.reduce(
    (total, record) => total + 2 + 11 + histogram + 1 + empty(record) + scanHealth(record),
    0,
  )
  const rest = generated.snapshot.buckets.filter((record) => !largest.includes(record))
  const other =
    2 +
    11 +
    histogram +
    (rest.some((record) => record.usage?.emptyObjects !== undefined) ? 1 : 0) +
    (rest.some((record) => record.usage?.unreadableEntries !== undefined) ? 1 : 0)
  assert.equal(perBucket(parsed).length, itemised + other)
})

test('MAX_SERIES=100000: the largest buckets up to the ceiling, the rest counted and logged', async () => {
  const { parsed, logs } = await scrapeWith({ MAX_SERIES: '100000' })
  const usageSeries = parsed.samples.filter(
    (sample) =>
      sample.labels.bucket !== undefined ||
      sample.name.startsWith('objstore_cluster_') ||
      sample.name === 'objstore_source_up',
  ).length
  assert.ok(usageSeries <= 100_000, String(usageSeries))
  const value = (name: string) => parsed.samples.find((sample) => sample.name === name)?.value
  assert.equal(value('objstore_exporter_series_limit'), 100_000)
  assert.equal(value('objstore_exporter_series_limit_hits_total'), 1)
  const dropped = value('objstore_exporter_series_dropped') ?? 0
  assert.equal(perBucket(parsed).length + dropped, perBucket(full).length)
  assert.equal(bucketsOf(parsed).size + (value('objstore_exporter_buckets_dropped') ?? 0), BUCKETS)
  assert.equal(logs.filter((message) => message.startsWith('MAX_SERIES reached')).length, 1)
})

test('promtool check metrics is clean with the budget on; OpenMetrics carries the same series', {
  skip: promtoolSkipReason(),
}, async () => {
  const env = { BUCKETS_TOP_N: '500', MAX_SERIES: '20000', BUCKET_METRICS: 'usage,sizes,versions,scan' }
  const text = await scrapeWith(env)
  assert.equal(promtoolCheckMetrics(text.body), '')
  // promtool 2.42 parses only the text format ("unknown metric type" on OpenMetrics' `unknown`):
  // the OpenMetrics body is checked by the strict parser, against the text body's samples.
  const openMetrics = await scrapeWith(env, 'application/openmetrics-text; version=1.0.0')
  assert.ok(openMetrics.body.endsWith('# EOF\n'))
  // The size distribution is a gauge histogram: _gsum/_gcount in OpenMetrics, _sum/_count in text.
  const budgeted = (parsed: ParsedExposition) =>
    parsed.samples
      .filter(
        (sample) => sample.labels.bucket !== undefined || sample.name.startsWith('objstore_exporter_series'),
      )
      .map((sample) => ({ ...sample, name: sample.name.replace(/_g(sum|count)$/, '_$1') }))
  assert.deepEqual(budgeted(openMetrics.parsed), budgeted(text.parsed))
  // 500 buckets and _other are over the ceiling: the largest are kept, _other (written last) is not.
  const kept = bucketsOf(text.parsed)
  assert.ok(kept.size > 0 && kept.size < 501 && !kept.has(OTHER_BUCKET), String(kept.size))
})

test('an unknown BUCKET_METRICS group refuses start-up naming the groups', async () => {
  await assert.rejects(
    scrapeWith({ BUCKET_METRICS: 'usage,ages' }),
    /BUCKET_METRICS: unknown group "ages"; expected a comma-separated list of usage, versions, quota, sizes, times, storage_class, multipart, age, hidden, prefixes, info, index, usage_log, scan, default, all/,
  )
})
