import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileGlob } from '../../src/config/bucket-selection.js'
import {
  type BucketSortKey,
  orderOf,
  parseBucketFilter,
  type SortOrder,
  viewBuckets,
} from '../../src/server/bucket-view.js'
import { type BucketRecord, byName } from '../../src/snapshot/snapshot.js'
import { figuresOf, storedRecord } from '../../src/snapshot/stored-records.js'

let seed = 11
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}

/** Records with few distinct sizes (ties are many), some never measured, some stored as the state file keeps them. */
function records(count: number): BucketRecord[] {
  return Array.from({ length: count }, (_, index) => {
    const name = `b-${String(Math.floor(random() * 1e6)).padStart(6, '0')}-${index}`
    if (random() < 0.1) return { name, scanSuccess: false, scanDurationSeconds: 1 }
    const record: BucketRecord = {
      name,
      usage: { bytes: Math.floor(random() * 6) * 1000, objects: Math.floor(random() * 4) },
      scanSuccess: true,
      scanDurationSeconds: 0.1,
    }
    return random() < 0.5 ? storedRecord(record, Buffer.from(JSON.stringify(record))) : record
  }).sort(byName)
}

/** What /api/v1/buckets did before: filter, then sort every match with one comparator. */
function naive(
  buckets: readonly BucketRecord[],
  sort: BucketSortKey,
  order: SortOrder,
  test: (name: string) => boolean,
) {
  const sign = order === 'asc' ? 1 : -1
  const figure = (record: BucketRecord) =>
    (sort === 'bytes' ? figuresOf(record)?.bytes : figuresOf(record)?.objects) ?? -1
  return buckets
    .filter((record) => test(record.name))
    .sort((a, b) => (sort === 'name' ? sign * byName(a, b) : sign * (figure(a) - figure(b)) || byName(a, b)))
}

test('a view is the old filter-then-sort, cut to the page asked, with its totals', () => {
  const buckets = records(700)
  for (const sort of ['name', 'bytes', 'objects'] as const) {
    for (const order of ['asc', 'desc'] as const) {
      for (const match of [undefined, 'b-0*', '*[13579]']) {
        const parsed = parseBucketFilter({ sort, order, match }, 'bytes')
        assert.ok('filter' in parsed)
        const glob = match === undefined ? undefined : compileGlob(match)
        const expected = naive(buckets, sort, order, (name) => !glob || glob.test(name))
        for (const [skip, take] of [
          [0, 100],
          [100, 100],
          [650, 100],
          [0, 10_000],
          [10_000, 5],
        ] as const) {
          const view = viewBuckets(buckets, parsed.filter, skip, take)
          const label = `${sort} ${order} ${match} ${skip}+${take}`
          assert.deepEqual(
            view.rows.map((record) => record.name),
            expected.slice(skip, skip + take).map((record) => record.name),
            label,
          )
          assert.equal(view.matched, expected.length, label)
          assert.deepEqual(view.totals, {
            buckets: expected.length,
            bytes: expected.reduce((sum, record) => sum + (figuresOf(record)?.bytes ?? 0), 0),
            objects: expected.reduce((sum, record) => sum + (figuresOf(record)?.objects ?? 0), 0),
          })
        }
      }
    }
  }
})

test('a prefix filters as the API does, and defaults follow the sort key', () => {
  const buckets = records(200)
  const parsed = parseBucketFilter({ prefix: 'b-00' }, 'name')
  assert.ok('filter' in parsed)
  assert.equal(parsed.filter.order, 'asc')
  const view = viewBuckets(buckets, parsed.filter, 0, 1000)
  assert.deepEqual(
    view.rows.map((record) => record.name),
    buckets.filter((record) => record.name.startsWith('b-00')).map((record) => record.name),
  )
  const bySize = parseBucketFilter({}, 'bytes')
  assert.ok('filter' in bySize && bySize.filter.order === 'desc')
  assert.deepEqual(parseBucketFilter({ match: '[ab' }, 'name'), { problem: 'match: unterminated [ in "[ab"' })
})

test('the order is sorted once per snapshot and kept, and an unsorted array is put in name order', () => {
  const buckets = records(300)
  assert.equal(orderOf(buckets, 'bytes', 'desc'), orderOf(buckets, 'bytes', 'desc'))
  const shuffled = [...buckets].reverse()
  const parsed = parseBucketFilter({ sort: 'name' }, 'name')
  assert.ok('filter' in parsed)
  assert.deepEqual(
    viewBuckets(shuffled, parsed.filter, 0, 1000).rows.map((record) => record.name),
    buckets.map((record) => record.name),
  )
})
