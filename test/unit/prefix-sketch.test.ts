import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  boundedPrefix,
  keyPrefix,
  PREFIX_LABEL_MAX_LENGTH,
  ROOT_PREFIX,
  TRUNCATION_MARKER,
} from '../../src/figures/prefixes/labels.js'
import { mergePrefixes, type PrefixFigures, PrefixSketch } from '../../src/figures/prefixes/sketch.js'
import { UsageAccumulator, withTopPrefixes } from '../../src/record/bucket-usage.js'
import { mergeUsage } from '../../src/record/usage-sums.js'

const SLASH = { delimiter: '/', topK: 10 }

test('a key counts under its folder at the depth, a shallower one under its own folder, none under _root', () => {
  assert.equal(keyPrefix('a/b/c.txt', { ...SLASH, depth: 1 }), 'a/')
  assert.equal(keyPrefix('a/b/c.txt', { ...SLASH, depth: 2 }), 'a/b/')
  assert.equal(keyPrefix('a/b/c.txt', { ...SLASH, depth: 5 }), 'a/b/')
  assert.equal(keyPrefix('a/c.txt', { ...SLASH, depth: 2 }), 'a/')
  assert.equal(keyPrefix('top.txt', { ...SLASH, depth: 1 }), ROOT_PREFIX)
  assert.equal(keyPrefix('/lead', { ...SLASH, depth: 1 }), '/')
  assert.equal(keyPrefix('a//b', { ...SLASH, depth: 2 }), 'a//')
  assert.equal(keyPrefix('2026--01--x', { delimiter: '--', topK: 1, depth: 2 }), '2026--01--')
  // Only a delimiter ending in the reserved name's last letter can spell one; it is marked.
  assert.equal(keyPrefix('_rootX', { delimiter: 't', topK: 1, depth: 1 }), '\\_root')
  assert.equal(keyPrefix('_otherX', { delimiter: 'r', topK: 1, depth: 1 }), '\\_other')
})

test('a long prefix is cut to the bound with a marker, never inside a surrogate pair', () => {
  const long = `${'x'.repeat(300)}/`
  const label = boundedPrefix(long)
  assert.equal(label.length, PREFIX_LABEL_MAX_LENGTH)
  assert.ok(label.endsWith(TRUNCATION_MARKER))
  assert.ok(long.startsWith(label.slice(0, -1)))
  assert.equal(boundedPrefix('short/'), 'short/')
  assert.equal(boundedPrefix('y'.repeat(PREFIX_LABEL_MAX_LENGTH)), 'y'.repeat(PREFIX_LABEL_MAX_LENGTH))
  // A pair straddling the cut is dropped whole: the label stays valid UTF-8.
  const emoji = `${'z'.repeat(PREFIX_LABEL_MAX_LENGTH - 2)}😀😀/`
  const cut = boundedPrefix(emoji)
  assert.ok(cut.length <= PREFIX_LABEL_MAX_LENGTH)
  assert.ok(Buffer.from(cut, 'utf8').toString('utf8') === cut && !/[\ud800-\udbff]$/.test(cut.slice(0, -1)))
  assert.equal(cut, `${'z'.repeat(PREFIX_LABEL_MAX_LENGTH - 2)}${TRUNCATION_MARKER}`)
})

/** A deterministic stream of (prefix, size): skewed, so a few prefixes hold most bytes. */
function stream(objects: number, distinct: number, seed: number): Array<readonly [string, number]> {
  let state = seed >>> 0
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0
    return state / 2 ** 32
  }
  return Array.from({ length: objects }, () => {
    const rank = Math.floor(distinct * next() ** 3)
    return [`p${rank}/`, Math.floor(next() * 10_000 * (rank < 5 ? 50 : 1))] as const
  })
}

function exact(
  items: ReadonlyArray<readonly [string, number]>,
): Map<string, { bytes: number; objects: number }> {
  const truth = new Map<string, { bytes: number; objects: number }>()
  for (const [prefix, size] of items) {
    const entry = truth.get(prefix) ?? { bytes: 0, objects: 0 }
    entry.bytes += size
    entry.objects++
    truth.set(prefix, entry)
  }
  return truth
}

function fold(items: ReadonlyArray<readonly [string, number]>, capacity: number): PrefixFigures {
  const sketch = new PrefixSketch(capacity)
  for (const [prefix, size] of items) sketch.add(prefix, size)
  return sketch.figures()
}

/** Space-Saving's guarantees, checked against the exact figures. */
function assertBounds(figures: PrefixFigures, items: ReadonlyArray<readonly [string, number]>): void {
  const truth = exact(items)
  const total = items.reduce((sum, [, size]) => sum + size, 0)
  const tracked = new Set(figures.rows.map((row) => row.prefix))
  assert.ok(figures.rows.length <= figures.capacity)
  assert.ok(figures.rows.reduce((sum, row) => sum + row.bytes, 0) <= total, 'rows never exceed the bucket')
  assert.ok(figures.errorBytes <= total / figures.capacity, `error ${figures.errorBytes} <= N/c`)
  for (const row of figures.rows) {
    const real = truth.get(row.prefix) ?? { bytes: 0, objects: 0 }
    assert.ok(row.bytes >= real.bytes, `${row.prefix}: ${row.bytes} never under ${real.bytes}`)
    assert.ok(row.bytes - real.bytes <= figures.errorBytes, `${row.prefix}: over by at most errorBytes`)
    assert.ok(row.objects <= real.objects, `${row.prefix}: objects a lower bound`)
  }
  for (const [prefix, real] of truth) {
    if (!tracked.has(prefix)) assert.ok(real.bytes <= figures.errorBytes, `${prefix} untracked only if small`)
  }
}

test('exact while the distinct prefixes fit the capacity, in any order', () => {
  const items = stream(20_000, 80, 7)
  const figures = fold(items, 80)
  assert.equal(figures.errorBytes, 0)
  assert.equal(figures.cut, false)
  const truth = exact(items)
  assert.equal(figures.rows.length, truth.size)
  for (const row of figures.rows)
    assert.deepEqual({ bytes: row.bytes, objects: row.objects }, truth.get(row.prefix))
  // Largest first.
  assert.deepEqual(
    figures.rows.map((row) => row.bytes),
    [...figures.rows.map((row) => row.bytes)].sort((a, b) => b - a),
  )
})

test('above the capacity: estimates within the bound, the heavy prefixes kept', () => {
  const items = stream(50_000, 5_000, 11)
  const figures = fold(items, 80)
  assert.ok(figures.errorBytes > 0)
  assert.equal(figures.cut, true)
  assertBounds(figures, items)
  // The five heavy prefixes hold far more than N/c each: they are tracked and ranked first.
  const top = figures.rows.slice(0, 5).map((row) => row.prefix)
  assert.deepEqual(new Set(top), new Set(['p0/', 'p1/', 'p2/', 'p3/', 'p4/']))
})

test('merging partial sketches: exact when the union fits, bounded when it does not', () => {
  const small = stream(6_000, 60, 3)
  const parts = [small.slice(0, 1_000), small.slice(1_000, 4_500), small.slice(4_500)]
  const merged = parts.map((part) => fold(part, 80)).reduce(mergePrefixes)
  assert.equal(merged.errorBytes, 0)
  assert.deepEqual(merged.rows, fold(small, 80).rows, 'same rows as one fold')

  const large = stream(60_000, 4_000, 5)
  const pieces = Array.from({ length: 7 }, (_, index) => large.slice(index * 8_572, (index + 1) * 8_572))
  assert.equal(
    pieces.reduce((sum, piece) => sum + piece.length, 0),
    large.length,
  )
  // Merged in a tree and in a chain, as the walk's parts return.
  const sketches = pieces.map((piece) => fold(piece, 80))
  assertBounds(sketches.reduce(mergePrefixes), large)
  const pair = (list: PrefixFigures[]): PrefixFigures =>
    list.length === 1
      ? (list[0] as PrefixFigures)
      : pair(
          Array.from({ length: Math.ceil(list.length / 2) }, (_, index) => {
            const [a, b] = [list[2 * index] as PrefixFigures, list[2 * index + 1]]
            return b ? mergePrefixes(a, b) : a
          }),
        )
  assertBounds(pair(sketches), large)
  // Disjoint parts that each fit but together do not: the merge is cut and still bounded.
  const left = stream(5_000, 70, 1).map(([prefix, size]) => [`l-${prefix}`, size] as const)
  const right = stream(5_000, 70, 2).map(([prefix, size]) => [`r-${prefix}`, size] as const)
  const both = mergePrefixes(fold(left, 80), fold(right, 80))
  assert.equal(both.rows.length, 80)
  assert.equal(both.cut, true)
  assertBounds(both, [...left, ...right])
})

test('through the fold and mergeUsage: rows cut to the top K, the rest is the bucket bytes minus them', () => {
  const items = stream(3_000, 30, 9)
  const accumulate = (part: typeof items) => {
    const accumulator = new UsageAccumulator({ storageClasses: false, nowMs: 0, prefixTopK: 4 })
    for (const [prefix, size] of part) accumulator.add({ size, modifiedMs: 0, prefix })
    return accumulator.finish()
  }
  const usage = withTopPrefixes(
    mergeUsage(accumulate(items.slice(0, 1_234)), accumulate(items.slice(1_234))),
    4,
  )
  const truth = [...exact(items)].sort(([, a], [, b]) => b.bytes - a.bytes)
  assert.equal(usage.prefixes?.cut, true)
  assert.equal(usage.prefixes?.errorBytes, 0)
  assert.deepEqual(
    usage.prefixes?.rows,
    truth.slice(0, 4).map(([prefix, figures]) => ({ prefix, ...figures })),
  )
  const off = new UsageAccumulator({ storageClasses: false, nowMs: 0 })
  off.add({ size: 1, modifiedMs: 0, prefix: 'a/' })
  assert.equal(off.finish().prefixes, undefined, 'no prefixes unless asked')
})
