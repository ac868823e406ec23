import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { mergeUsage } from '../../src/record/usage-sums.js'
import { type BucketRecord, rangeSummary, type UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { bucketJson } from '../../src/snapshot/snapshot-json.js'
import { loadState, saveState } from '../../src/snapshot/state-file.js'
import { figuresOf, subtotalsOf } from '../../src/snapshot/stored-records.js'
import {
  type BucketRanges,
  mergedNeighbours,
  mergedSubtotals,
  type Piece,
  relistedRanges,
} from '../../src/sources/subtotals.js'
import type { BucketUsage } from '../../src/sources/types.js'
import { scratchFolder } from '../support/scratch.js'

const NOW = 1_700_000_200_000

function usageOf(sizes: readonly number[]): BucketUsage {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  for (const size of sizes) fold.add({ size, modifiedMs: NOW - 1000 * size })
  return fold.finish()
}

const piece = (through: string | undefined, sizes: number[]): Piece => ({
  through,
  entries: sizes.length,
  usage: usageOf(sizes),
})

test('a range listed again keeps its ends unless it grew past the bound; then it is cut in pieces', () => {
  const listed = { ms: NOW, turn: 3 }
  const kept = relistedRanges([piece('f', [1, 2]), piece('m', [3])], { maxEntries: 4 }, listed)
  assert.equal(kept.length, 1)
  assert.equal(kept[0]?.through, 'm')
  assert.deepEqual(kept[0]?.usage, mergeUsage(usageOf([1, 2]), usageOf([3])))
  const split = relistedRanges(
    [piece('c', [1, 2]), piece('f', [3, 4]), piece(undefined, [5, 6])],
    { maxEntries: 4 },
    listed,
  )
  assert.deepEqual(
    split.map((range) => [range.through, range.entries, range.listedTurn]),
    [
      ['c', 2, 3],
      ['f', 2, 3],
      [undefined, 2, 3],
    ],
  )
  // A short last piece joins the one before.
  const tail = relistedRanges(
    [piece('c', [1, 2, 3, 4]), piece('f', [5, 6, 7, 8]), piece('g', [9])],
    { maxEntries: 8 },
    listed,
  )
  assert.deepEqual(
    tail.map((range) => [range.through, range.entries]),
    [
      ['c', 4],
      ['g', 5],
    ],
  )
})

test('neighbours that shrank merge; the bucket is the merge of its ranges', () => {
  const ranges = relistedRanges([piece('c', [1])], { maxEntries: 100 }, { ms: NOW, turn: 1 })
    .concat(relistedRanges([piece('k', [2, 3])], { maxEntries: 100 }, { ms: NOW - 5000, turn: 0 }))
    .concat(
      relistedRanges(
        [
          piece(
            undefined,
            Array.from({ length: 60 }, (_, i) => i),
          ),
        ],
        { maxEntries: 100 },
        { ms: NOW, turn: 1 },
      ),
    )
  const merged = mergedNeighbours(ranges, { maxEntries: 100 })
  assert.deepEqual(
    merged.map((range) => [range.through, range.entries, range.listedMs, range.listedTurn]),
    [
      ['k', 3, NOW - 5000, 0],
      [undefined, 60, NOW, 1],
    ],
  )
  assert.deepEqual(mergedSubtotals(merged), mergedSubtotals(ranges))
})

function rangedSnapshot(subtotals: BucketRanges): UsageSnapshot {
  const usage = mergedSubtotals(subtotals.subtotals) as BucketUsage
  const record: BucketRecord = {
    name: 'big',
    usage,
    scanSuccess: true,
    scanDurationSeconds: 1,
    lastSuccessSeconds: NOW / 1000,
    ranges: rangeSummary(subtotals),
    subtotals,
  }
  return {
    sourceName: 's3',
    sourceId: 's3:http://127.0.0.1:9000',
    sourceUp: true,
    completedAtMs: NOW,
    buckets: [record],
  }
}

test('subtotals survive the state file; a range that is not the last but open-ended is refused', async (t) => {
  const folder = await scratchFolder(t, 'objstore-subtotals-')
  const path = join(folder, 'state.json')
  const subtotals: BucketRanges = {
    listing: 'objects',
    turn: 7,
    subtotals: relistedRanges(
      [piece('d', [1, 2]), piece(undefined, [3])],
      { maxEntries: 1 },
      { ms: NOW, turn: 7 },
    ),
    relistedRanges: 1,
    relistedEntries: 3,
    dirtyRanges: 1,
  }
  const snapshot = rangedSnapshot(subtotals)
  await saveState(path, snapshot)
  const loaded = await loadState(path, snapshot.sourceId, NOW)
  assert.equal(loaded.status, 'loaded')
  if (loaded.status !== 'loaded') return
  const record = loaded.snapshot.buckets[0]
  assert.deepEqual(subtotalsOf(record), subtotals)
  assert.deepEqual(figuresOf(record), snapshot.buckets[0]?.usage)
  assert.deepEqual(record?.ranges, { ranges: 2, dirty: 1, relistedRatio: 1, oldestListedSeconds: NOW / 1000 })

  const text = await readFile(path, 'utf8')
  await writeFile(
    path,
    text.replace('"through":"d"', '"through":"zz"').replace('}},{"entries"', '}},{"through":"a","entries"'),
  )
  const refused = await loadState(path, snapshot.sourceId, NOW)
  assert.equal(refused.status === 'loaded' && refused.snapshot.buckets.length, 0)
  assert.match(
    refused.status === 'loaded' ? String(refused.refused[0]?.reason) : '',
    /only the last range is open-ended/,
  )
})

test('the JSON API and scan --once say what a bucket with subtotals is as of: its stalest range', () => {
  const subtotals: BucketRanges = {
    listing: 'objects',
    turn: 2,
    subtotals: [
      ...relistedRanges([piece('d', [1])], { maxEntries: 10 }, { ms: NOW - 60_000, turn: 1 }),
      ...relistedRanges([piece(undefined, [2, 3])], { maxEntries: 10 }, { ms: NOW, turn: 2 }),
    ],
    relistedRanges: 1,
    relistedEntries: 2,
    dirtyRanges: 0,
  }
  const json = bucketJson(rangedSnapshot(subtotals).buckets[0] as BucketRecord)
  assert.equal(json.lastSuccessAt, new Date(NOW).toISOString())
  assert.equal(json.asOf, new Date(NOW - 60_000).toISOString())
  assert.deepEqual(json.ranges, { ranges: 2, dirty: 0, relistedRatio: 2 / 3 })
  const whole = bucketJson({
    name: 'small',
    scanSuccess: true,
    scanDurationSeconds: 1,
    lastSuccessSeconds: NOW / 1000,
  })
  assert.equal(whole.asOf, whole.lastSuccessAt, 'a bucket listed whole is as of its last success')
})
