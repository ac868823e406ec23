import assert from 'node:assert/strict'
import { test } from 'node:test'
import { familyOf, fillGrafanaVariables, isKnownMetric, metricNames } from '../support/promql.js'

// The checks of the dashboard and the rules trust metricNames(); these pin down what it finds.
test('metricNames finds selectors and skips functions, keywords, labels, strings and durations', () => {
  assert.deepEqual(
    metricNames(
      'sum by (bucket, le) (rate(objstore_a_bucket{job=~"x", le!="+Inf"}[5m] offset 1h)) / on (bucket) group_left (drive) objstore_b',
    ),
    ['objstore_a_bucket', 'objstore_b'],
  )
  assert.deepEqual(metricNames('time() - objstore_c > 26 * 3600 and 1e9 < objstore_d unless bool up'), [
    'objstore_c',
    'objstore_d',
    'up',
  ])
  assert.deepEqual(metricNames('histogram_quantile(0.99, sum without (instance) (x_bucket))'), ['x_bucket'])
  assert.deepEqual(metricNames('max by (bucket) (objstore:recorded{bucket="a b"}) # comment objstore_e'), [
    'objstore:recorded',
  ])
  assert.deepEqual(metricNames('absent(up{job="objstore-exporter"})'), ['up'])
  assert.deepEqual(metricNames("vector(1) + on() label_replace(m, 'x', '$1', 'y', '(.*)')"), ['m'])
})

test('fillGrafanaVariables puts the All values in and refuses unknown variables', () => {
  assert.equal(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's braced variable syntax under test.
    fillGrafanaVariables('rate(m{job=~"$job", bucket=~"${bucket}"}[$__rate_interval])'),
    'rate(m{job=~".+", bucket=~".*"}[1m])',
  )
  assert.throws(() => fillGrafanaVariables('m{x="$nope"}'), /unknown Grafana variable \$nope/)
})

test('isKnownMetric accepts catalogue families, histogram series, runtime families, up and recorded names', () => {
  const recorded = new Set(['objstore:bucket_backup_max_age_seconds'])
  for (const name of [
    'objstore_node_drive_free_bytes',
    'objstore_bucket_object_size_bytes_bucket',
    'objstore_bucket_object_size_bytes_count',
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
    'up',
    'objstore:bucket_backup_max_age_seconds',
  ]) {
    assert.ok(isKnownMetric(name, 'objstore', recorded), name)
  }
  for (const name of [
    'objstore_node_drive_free',
    'objstore_node_drive_free_bytes_bucket',
    'minio_node_drive_free_bytes',
  ]) {
    assert.equal(isKnownMetric(name, 'objstore', recorded), false, name)
  }
  assert.equal(familyOf('minio_node_drive_free_bytes', 'minio'), 'node_drive_free_bytes')
})
