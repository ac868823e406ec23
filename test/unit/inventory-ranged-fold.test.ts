import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InventoryFold } from '../../src/sources/s3/inventory/inventory-fold.js'
import { RangedInventoryFold } from '../../src/sources/s3/inventory/ranged-fold.js'
import type { InventoryRow } from '../../src/sources/s3/inventory/rows.js'

const NOW = Date.parse('2026-12-04T01:00:00Z')
const newFold =
  (versions = false) =>
  () =>
    new InventoryFold({ versions, storageClasses: true, nowMs: NOW })

const row = (key: string, size: number, version?: { id: string; latest: boolean }): InventoryRow => ({
  key,
  size,
  modifiedMs: NOW - 3_600_000,
  storageClass: 'STANDARD',
  versionId: version?.id,
  isLatest: version?.latest ?? true,
  isDeleteMarker: false,
})

const keyOf = (index: number) => `k-${String(index).padStart(4, '0')}`

test('ranges cut as sorted rows come: each about pieceEntries rows, their sum the bucket', () => {
  const rows = Array.from({ length: 1_050 }, (_, index) => row(keyOf(index), index))
  const fold = new RangedInventoryFold(newFold(), undefined, 200)
  for (let start = 0; start < rows.length; start += 64) fold.add(rows.slice(start, start + 64))
  const pieces = fold.finish()
  assert.deepEqual(
    pieces.map((piece) => piece.entries),
    [200, 200, 200, 200, 200, 50],
  )
  assert.deepEqual(
    pieces.map((piece) => piece.through),
    [keyOf(199), keyOf(399), keyOf(599), keyOf(799), keyOf(999), undefined],
  )
  const usages = pieces.map((piece) => piece.fold.finish())
  assert.equal(
    usages.reduce((sum, usage) => sum + usage.bytes, 0),
    rows.reduce((sum, each) => sum + (each.size ?? 0), 0),
  )
  assert.equal(fold.rows, rows.length)
})

test("a row out of key order goes to the range holding its key; a key's versions are never split", () => {
  const versioned = [
    row(keyOf(1), 10, { id: 'a', latest: false }),
    row(keyOf(1), 20, { id: 'b', latest: false }),
    row(keyOf(1), 30, { id: 'c', latest: true }),
    row(keyOf(2), 40, { id: 'd', latest: true }),
    row(keyOf(3), 50, { id: 'e', latest: true }),
  ]
  const fold = new RangedInventoryFold(newFold(true), undefined, 2)
  fold.add(versioned.slice(0, 2))
  fold.add(versioned.slice(2))
  fold.add([row(keyOf(0), 7, { id: 'f', latest: true })]) // out of order: into the first range
  const pieces = fold.finish()
  assert.deepEqual(
    pieces.map((piece) => [piece.through, piece.entries]),
    [
      [keyOf(1), 4],
      [undefined, 2],
    ],
  )
  // What each range folded: k-0000's and k-0001's current objects (7 + 30 bytes), then k-0002's
  // and k-0003's (40 + 50): the row out of order counted where its key lies, each row once.
  const usages = pieces.map((piece) => piece.fold.finish())
  assert.deepEqual(
    usages.map((usage) => [usage.objects, usage.bytes]),
    [
      [2, 37],
      [2, 90],
    ],
  )
  assert.equal(
    usages[0]?.versions?.noncurrentBytes,
    30,
    "the first key's two noncurrent versions in one range",
  )
})

test("the bucket's own ranges: every row to the range holding its key, none cut", () => {
  const fold = new RangedInventoryFold(newFold(), [keyOf(9), keyOf(19)], 2)
  fold.add(Array.from({ length: 30 }, (_, index) => row(keyOf(29 - index), 1)))
  assert.deepEqual(
    fold.finish().map((piece) => [piece.through, piece.entries]),
    [
      [keyOf(9), 10],
      [keyOf(19), 10],
      [undefined, 10],
    ],
  )
})
