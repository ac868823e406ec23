import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { shardHash } from '../../src/scanning/bucket-filter.js'
import { RangeRounds } from '../../src/scanning/range-rounds.js'
import { type BucketRecord, rangeSummary } from '../../src/snapshot/snapshot.js'
import type { BucketRanges } from '../../src/sources/subtotals.js'

const NOW = 1_700_000_000_000

function usage(objects: number) {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: NOW })
  for (let index = 0; index < objects; index++) fold.add({ size: 1, modifiedMs: NOW })
  return fold.finish()
}

function record(subtotals: BucketRanges | undefined, objects = 3000): BucketRecord {
  return {
    name: 'b',
    usage: usage(objects),
    scanSuccess: true,
    scanDurationSeconds: 1,
    ...(subtotals ? { ranges: rangeSummary(subtotals), subtotals } : {}),
  }
}

const ENDS = ['f', 'p', undefined]
function ranges(turn: number, listedTurn = turn): BucketRanges {
  return {
    listing: 'objects',
    turn,
    subtotals: ENDS.map((through) => ({
      ...(through === undefined ? {} : { through }),
      entries: 1000,
      listedMs: NOW,
      listedTurn,
      usage: usage(1),
    })),
    relistedRanges: 3,
    relistedEntries: 3000,
    dirtyRanges: 0,
  }
}

/** K large enough that no range's hash meets the turn, checked. */
const K = 1_000_003
const settings = { fullEvery: K, minObjects: 2000, maxEntries: 2000 }
const relisted = (relist: Uint8Array | undefined) =>
  [...(relist ?? [])].flatMap((bit, index) => (bit ? [index] : []))

test('a bucket below SCAN_SUBTOTALS_MIN_OBJECTS is listed whole; above it, its first ranges are planned', () => {
  const rounds = new RangeRounds(settings)
  assert.equal(rounds.begin('b', record(undefined, 1999)), undefined)
  assert.equal(rounds.begin('b', undefined), undefined, 'never measured: listed whole')
  const first = rounds.begin('b', record(undefined))
  assert.equal(first?.request.previous, undefined)
  assert.equal(first?.request.turn, 1)
  assert.equal(new RangeRounds({ ...settings, fullEvery: 1 }).begin('b', record(undefined)), undefined)
})

test('marked ranges are listed again; a failed listing puts its marks back', () => {
  for (const end of ENDS) assert.notEqual(shardHash(end ?? '') % K, 2 % K)
  const rounds = new RangeRounds(settings)
  const previous = record(ranges(1))
  assert.deepEqual(relisted(rounds.begin('b', previous)?.request.relist), [], 'nothing marked, nothing due')
  rounds.keyChanges.markChanged('b', 'g')
  const begun = rounds.begin('b', previous)
  assert.deepEqual(relisted(begun?.request.relist), [1])
  rounds.failed('b', begun)
  assert.deepEqual(
    relisted(rounds.begin('b', previous)?.request.relist),
    [1],
    'listed again after the failure',
  )
  assert.deepEqual(relisted(rounds.begin('b', previous)?.request.relist), [], 'once listed, clean')
})

test('a range listed SCAN_FULL_EVERY turns ago is due whatever its hash; the turn picks about 1/K', () => {
  const rounds = new RangeRounds({ ...settings, fullEvery: 4 })
  assert.deepEqual(relisted(rounds.begin('b', record(ranges(5, 1)))?.request.relist), [0, 1, 2])
  const due = ENDS.flatMap((end, index) => (shardHash(end ?? '') % 4 === 3 % 4 ? [index] : []))
  assert.deepEqual(relisted(rounds.begin('b', record(ranges(2, 2)))?.request.relist), due)
})

test('marks made while the bucket is listed stay dirty in the ranges the round leaves', () => {
  const rounds = new RangeRounds(settings)
  rounds.begin('b', record(ranges(1)))
  rounds.keyChanges.markChanged('b', 'z')
  const after = rounds.measured('b', ranges(2))
  assert.equal(after?.dirtyRanges, 1)
  assert.deepEqual(relisted(rounds.begin('b', record(after))?.request.relist), [2])
})
