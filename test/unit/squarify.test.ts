import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Rect, squarify } from '../../src/server/landing/squarify.js'

const RECT: Rect = { x: 10, y: 20, width: 960, height: 480 }
const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, expected), `${what}: ${actual} != ${expected}`)

function overlaps(a: Rect, b: Rect): boolean {
  const eps = 1e-6
  return (
    a.x + eps < b.x + b.width &&
    b.x + eps < a.x + a.width &&
    a.y + eps < b.y + b.height &&
    b.y + eps < a.y + a.height
  )
}

test('each tile has the area of its share, inside the rectangle, none overlapping', () => {
  let seed = 3
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  for (const count of [1, 2, 3, 7, 51, 400]) {
    // Sizes spread over six orders of magnitude, as buckets are.
    const values = Array.from({ length: count }, () => Math.floor(10 ** (random() * 6)) + 1)
    const total = values.reduce((sum, value) => sum + value, 0)
    const tiles = squarify(
      values.map((value, index) => ({ item: index, value })),
      RECT,
    )
    assert.equal(tiles.length, count)
    for (const tile of tiles) {
      near(tile.width * tile.height, (tile.value / total) * RECT.width * RECT.height, `tile ${tile.item}`)
      assert.equal(tile.value, values[tile.item])
      assert.ok(tile.x >= RECT.x - 1e-6 && tile.y >= RECT.y - 1e-6, `tile ${tile.item} starts inside`)
      assert.ok(tile.x + tile.width <= RECT.x + RECT.width + 1e-6, `tile ${tile.item} ends inside`)
      assert.ok(tile.y + tile.height <= RECT.y + RECT.height + 1e-6, `tile ${tile.item} ends inside`)
    }
    for (let a = 0; a < tiles.length; a++)
      for (let b = a + 1; b < tiles.length; b++)
        assert.ok(!overlaps(tiles[a] as Rect, tiles[b] as Rect), `tiles ${a} and ${b} overlap`)
  }
})

test('tiles are near square, not slices: equal values in a 2:1 rectangle are 1:1 to 2:1', () => {
  const tiles = squarify(
    Array.from({ length: 32 }, (_, index) => ({ item: index, value: 1 })),
    RECT,
  )
  const ratios = tiles.map((tile) => Math.max(tile.width / tile.height, tile.height / tile.width))
  assert.ok(Math.max(...ratios) <= 2, `worst aspect ratio ${Math.max(...ratios)}`)
})

test('largest first; nothing for values of 0 or less, or an empty rectangle', () => {
  const tiles = squarify(
    [
      { item: 'small', value: 1 },
      { item: 'none', value: 0 },
      { item: 'big', value: 9 },
      { item: 'negative', value: -4 },
    ],
    RECT,
  )
  assert.deepEqual(
    tiles.map((tile) => tile.item),
    ['big', 'small'],
  )
  assert.deepEqual(squarify([{ item: 1, value: 1 }], { x: 0, y: 0, width: 0, height: 10 }), [])
  assert.deepEqual(squarify([], RECT), [])
})
