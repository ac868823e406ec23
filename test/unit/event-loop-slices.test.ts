import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eachInSlices, keptInSlices, SLICE_MS } from '../../src/event-loop-slices.js'
import {
  type BucketRecord,
  inOrder,
  recordsByName,
  sortedRecordsByName,
} from '../../src/snapshot/snapshot.js'

test('a long pass in slices gives the event loop turns, and keeps what it keeps in order', async () => {
  let turns = 0
  const ticker = setInterval(() => turns++, 0)
  try {
    // Each item holds the loop 1 ms: 4 slices' worth in all.
    const items = Array.from({ length: 4 * SLICE_MS }, (_, index) => index)
    const kept = await keptInSlices(items, (item) => {
      const until = performance.now() + 1
      while (performance.now() < until);
      return item % 2 === 0
    })
    assert.deepEqual(
      kept,
      items.filter((item) => item % 2 === 0),
    )
    assert.ok(turns >= 2, `timers ran ${turns} times during the pass`)
  } finally {
    clearInterval(ticker)
  }
})

test("a snapshot's records by name: each found by binary search, others not", () => {
  const names = ['', 'a', 'a-b', 'a.b', 'b', 'bucket-000', 'bucket-001', 'z', 'é', '😀']
  const buckets = [...names]
    .sort()
    .map((name): BucketRecord => ({ name, scanSuccess: true, scanDurationSeconds: 0 }))
  const byName = recordsByName({
    sourceName: 'fs',
    sourceId: 'fs:/d',
    sourceUp: true,
    completedAtMs: 0,
    buckets,
  })
  for (const record of buckets) assert.equal(byName.get(record.name), record)
  for (const name of ['0', 'a-', 'bucket-002', 'zz', '\uffff']) assert.equal(byName.get(name), undefined)
  assert.deepEqual([...byName.values()], buckets)
  assert.equal(recordsByName(undefined).get('a'), undefined)
})

test('names in order are told from names a sort would change; any iterable is visited in slices', async () => {
  assert.equal(inOrder([]), true)
  assert.equal(inOrder(['a', 'a', 'b', 'é', '😀']), true, 'duplicates side by side are in order')
  assert.equal(inOrder(['a', 'c', 'b']), false)
  assert.equal(inOrder(['B', 'a', 'Z']), false, 'code unit order, as Array.prototype.sort')
  const seen: Array<[string, number]> = []
  await eachInSlices(new Set(['x', 'y']), (item, index) => seen.push([item, index]))
  assert.deepEqual(seen, [
    ['x', 0],
    ['y', 1],
  ])
  const records = ['a', 'b'].map(
    (name): BucketRecord => ({ name, scanSuccess: true, scanDurationSeconds: 0 }),
  )
  assert.equal(sortedRecordsByName(records).get('b'), records[1])
})
