import assert from 'node:assert/strict'
import { test } from 'node:test'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { formatValue } from '../../src/metrics/exposition/format.js'
import { ExpositionWriter, familyParts } from '../../src/metrics/exposition/writer.js'
import { family as declare, describe, exposedFamily } from '../../src/metrics/families.js'
import { parseExposition, significantDigits } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'

/**
 * MinIO's v2 names of the families MinIO has (docs/minio-compatibility.md): what
 * METRICS_NAMESPACE=minio must serve, each the name MinIO's dashboards query.
 */
const MINIO_V2_NAMES = [
  'cluster_capacity_raw_total_bytes',
  'cluster_capacity_raw_free_bytes',
  'cluster_capacity_usable_total_bytes',
  'cluster_capacity_usable_free_bytes',
  'cluster_drive_online_total',
  'cluster_drive_offline_total',
  'cluster_drive_total',
  'node_drive_online_total',
  'node_drive_offline_total',
  'node_drive_total',
  'node_drive_total_bytes',
  'node_drive_used_bytes',
  'node_drive_free_bytes',
  'node_drive_total_inodes',
  'node_drive_used_inodes',
  'node_drive_free_inodes',
  'node_drive_errors_availability',
  'node_drive_errors_timeout',
  'node_drive_io_waiting',
  'cluster_bucket_total',
  'cluster_usage_total_bytes',
  'cluster_usage_object_total',
  'cluster_usage_version_total',
  'cluster_usage_deletemarker_total',
  'cluster_objects_size_distribution',
  'cluster_objects_version_distribution',
  'bucket_usage_total_bytes',
  'bucket_usage_object_total',
  'bucket_usage_version_total',
  'bucket_usage_deletemarker_total',
  'bucket_quota_total_bytes',
  'bucket_objects_size_distribution',
  'bucket_objects_version_distribution',
  'usage_last_activity_nano_seconds',
]

const exposed = (namespace: string) => familyNames.map((key) => exposedFamily(namespace, catalogue[key]))

test('under the default namespace every family has a real type and a Prometheus name', () => {
  for (const { name, type } of exposed('objstore')) {
    assert.notEqual(type, 'untyped', name)
    assert.match(name, /^objstore_[a-z][a-z0-9_]*$/, name)
    // `_total` is a counter's suffix, and a counter's only.
    assert.equal(name.endsWith('_total'), type === 'counter', `${name} (${type})`)
    assert.doesNotMatch(name, /nano_?seconds|_us$|_ms$/, `${name}: not in base units`)
  }
})

test('METRICS_NAMESPACE=minio serves the MinIO v2 name of every family MinIO has', () => {
  const names = new Set(exposed('minio').map(({ name }) => name))
  for (const minio of MINIO_V2_NAMES) assert.ok(names.has(`minio_${minio}`), `minio_${minio} is not served`)
  assert.equal(names.size, familyNames.length, 'two families under one name')
  // Any other namespace is the Prometheus name, MinIO's or not.
  assert.equal(exposedFamily('acme', catalogue.cluster_drives).name, 'acme_cluster_drives')
})

test("a MinIO name whose suffix contradicts its type is served untyped; MinIO's unit is scaled", () => {
  const cases = [
    ['minio', 'cluster_drives', 'minio_cluster_drive_total', 'untyped', 1],
    ['minio', 'node_drive_timeout_errors_total', 'minio_node_drive_errors_timeout', 'untyped', 1],
    ['minio', 'bucket_usage_total_bytes', 'minio_bucket_usage_total_bytes', 'gauge', 1],
    ['objstore', 'usage_snapshot_age_seconds', 'objstore_usage_snapshot_age_seconds', 'gauge', 1],
    ['minio', 'usage_snapshot_age_seconds', 'minio_usage_last_activity_nano_seconds', 'gauge', 1e9],
  ] as const
  for (const [namespace, key, name, type, scale] of cases) {
    assert.deepEqual(exposedFamily(namespace, catalogue[key]), { name, type, scale }, `${namespace} ${key}`)
  }
})

test('the writer names, types and scales a family by its namespace; both scrapes are promtool-clean', (t) => {
  const families = describe('test', {
    cluster_drives: declare('gauge', [], 'Drives.', { minio: 'cluster_drive_total' }),
    bucket_usage_objects: declare('gauge', ['bucket'], 'Objects.', 'usage', {
      minio: 'bucket_usage_object_total',
    }),
    usage_snapshot_age_seconds: declare('gauge', [], 'Age.', {
      minio: { name: 'usage_last_activity_nano_seconds', scale: 1e9 },
    }),
  })
  const render = (namespace: string) => {
    const writer = new ExpositionWriter(namespace, families)
    writer.set('cluster_drives', {}, 3)
    writer.set('bucket_usage_objects', { bucket: 'a' }, 7)
    writer.set('usage_snapshot_age_seconds', {}, 12.345)
    return Buffer.concat(familyParts(writer.families(), 'text')).toString('utf8')
  }
  const ours = parseExposition(render('objstore'))
  assert.deepEqual(Object.fromEntries(ours.types), {
    objstore_cluster_drives: 'gauge',
    objstore_bucket_usage_objects: 'gauge',
    objstore_usage_snapshot_age_seconds: 'gauge',
  })
  assert.equal(ours.samples.find((s) => s.name === 'objstore_usage_snapshot_age_seconds')?.value, 12.345)
  const minio = parseExposition(render('minio'))
  assert.deepEqual(Object.fromEntries(minio.types), {
    minio_cluster_drive_total: 'untyped',
    minio_bucket_usage_object_total: 'untyped',
    minio_usage_last_activity_nano_seconds: 'gauge',
  })
  assert.equal(
    minio.samples.find((s) => s.name === 'minio_usage_last_activity_nano_seconds')?.value,
    12_345_000_000,
  )
  const skip = promtoolSkipReason()
  if (skip) return t.skip(skip)
  assert.equal(promtoolCheckMetrics(render('objstore')), '')
  assert.equal(promtoolCheckMetrics(render('minio')), '')
})

test('values print without binary noise: at most 15 significant digits; integers and exact values as they are', () => {
  // A duration from two performance.now() readings, and the classic sum.
  assert.equal(formatValue(0.05065154999999868), '0.0506515499999987')
  assert.equal(formatValue(0.1 + 0.2), '0.3')
  assert.equal(formatValue(-(0.1 + 0.2)), '-0.3')
  assert.equal(formatValue(1.1 * 1.1), '1.21')
  assert.equal(formatValue(0.1 * 3e-7), '3e-8')
  // Exact values and short decimals are untouched.
  for (const value of [0, -0, 1, -7, 0.5, 0.1, 12.345, 1733380000.123, 0.0001, 1e-7, 123456.789012345]) {
    assert.equal(formatValue(value), String(value), String(value))
  }
  // Integers, however long: byte counts past 2^53, and beyond 1e21 as JavaScript writes them.
  for (const value of [2 ** 53 + 2, 9_007_199_254_740_993_000, 1e21, 123_456_789_012_345_680]) {
    assert.equal(formatValue(value), String(value), String(value))
  }
  assert.equal(formatValue(Number.NaN), 'NaN')
  assert.equal(formatValue(Number.POSITIVE_INFINITY), '+Inf')
  assert.equal(formatValue(Number.NEGATIVE_INFINITY), '-Inf')
  // Every rounded value reads back within the 15th digit.
  for (let index = 1; index < 2000; index++) {
    const value = (index * 0.7) / 3 + index / 1e6
    const printed = formatValue(value)
    assert.ok(significantDigits(printed) <= 15, printed)
    assert.ok(Math.abs(Number(printed) - value) <= Math.abs(value) * 1e-14, `${value} printed ${printed}`)
  }
})
