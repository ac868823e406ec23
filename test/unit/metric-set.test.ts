import assert from 'node:assert/strict'
import { test } from 'node:test'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { drivesFamilies } from '../../src/collectors/drives.js'
import { renderScrape } from '../../src/metrics/exposition/scrape-assembler.js'
import { familyParts } from '../../src/metrics/exposition/writer.js'
import { MetricSet, UndeclaredFamilyError, UndeclaredLabelsError } from '../../src/metrics/metric-set.js'

/** The set as one scrape renders it, in the text format. */
function scrapeText(set: MetricSet, namespace: string): string {
  return Buffer.concat(familyParts(renderScrape(set, namespace).families, 'text')).toString('utf8')
}

test('catalogue: names are unique, valid and counters end in _total', () => {
  const names = familyNames.map((key) => catalogue[key].name)
  assert.equal(new Set(names).size, names.length)
  for (const key of familyNames) {
    const { name, type, help, labels } = catalogue[key]
    assert.match(name, /^[a-z_][a-z0-9_]*$/, key)
    assert.ok(help.length > 10, `${key} has help`)
    if (name.endsWith('_total')) assert.notEqual(type, 'gauge', `${key}: promtool rejects _total on a gauge`)
    if (type === 'counter') assert.ok(name.endsWith('_total'), `${key}: a counter ends in _total`)
    for (const label of labels) assert.match(label, /^[a-z_][a-z0-9_]*$/, `${key} label ${label}`)
  }
})

test('a family is emitted under the namespace only when it has samples, in catalogue order', () => {
  const set = new MetricSet(catalogue)
  set.set('cluster_drives', {}, 2)
  set.set('node_drive_online', { drive: '/b' }, 0)
  set.set('node_drive_online', { drive: '/a' }, 1)
  const text = scrapeText(set, 'minio')
  assert.deepEqual(
    [...text.matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1]),
    ['minio_node_drive_online', 'minio_cluster_drive_total'],
  )
  assert.equal(text.match(/^minio_node_drive_online\{/gm)?.length, 2)
})

test('labels that differ from the declaration are refused at emission', () => {
  const set = new MetricSet(catalogue)
  assert.throws(
    // @ts-expect-error: the type system refuses it too; this checks the runtime guard.
    () => set.set('node_drive_online', { disk: '/a' }, 1),
    UndeclaredLabelsError,
  )
  assert.throws(
    // @ts-expect-error: an extra label.
    () => set.set('cluster_drives', { drive: '/a' }, 1),
    UndeclaredLabelsError,
  )
})

test('a histogram becomes cumulative _bucket samples with +Inf, _sum and _count', () => {
  const set = new MetricSet(catalogue)
  set.histogram(
    'bucket_object_size_bytes',
    { bucket: 'photos' },
    { upperBounds: [1024, 1048576], cumulativeCounts: [2, 3], sum: 5000000, count: 4 },
  )
  const text = scrapeText(set, 'objstore')
  assert.match(text, /^# TYPE objstore_bucket_object_size_bytes histogram$/m)
  assert.deepEqual(
    text.split('\n').filter((line) => line && !line.startsWith('#')),
    [
      'objstore_bucket_object_size_bytes_bucket{bucket="photos",le="1024"} 2',
      'objstore_bucket_object_size_bytes_bucket{bucket="photos",le="1048576"} 3',
      'objstore_bucket_object_size_bytes_bucket{bucket="photos",le="+Inf"} 4',
      'objstore_bucket_object_size_bytes_sum{bucket="photos"} 5000000',
      'objstore_bucket_object_size_bytes_count{bucket="photos"} 4',
    ],
  )
})

test('a family is named once: its key is its Prometheus name', () => {
  for (const name of familyNames) assert.equal(catalogue[name].name, name)
})

test('a set accepts only the families it was given', () => {
  const set = new MetricSet(drivesFamilies)
  set.set('cluster_drives', {}, 1)
  assert.throws(
    // @ts-expect-error: not a drives family; the runtime guard refuses it as well.
    () => set.set('cluster_buckets', {}, 1),
    UndeclaredFamilyError,
  )
  const wider = new MetricSet(catalogue)
  wider.absorb(set)
  assert.deepEqual(
    wider.samples('cluster_drives').map((sample) => sample.value),
    [1],
  )
  assert.throws(() => set.absorb(wider), UndeclaredFamilyError, 'a narrower set cannot take a wider one')
})
