import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  compareKeys,
  type KeyRange,
  type PlanOptions,
  type ProbeAnswer,
  type ProbeRequest,
  pastRange,
  planBoundaries,
  rangesFrom,
} from '../../src/sources/s3/key-ranges.js'

/** A bucket's keys answering ListObjectsV2 as S3 does: UTF-8 byte order, Prefix, StartAfter, Delimiter. */
function memoryProbe(keys: readonly string[]) {
  const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  const requests: ProbeRequest[] = []
  const probe = async (request: ProbeRequest): Promise<ProbeAnswer> => {
    requests.push(request)
    const found: string[] = []
    const prefixes: string[] = []
    let truncated = false
    for (const key of sorted) {
      if (!key.startsWith(request.prefix) || compareKeys(key, request.startAfter) <= 0) continue
      const slash = request.delimiter ? key.indexOf('/', request.prefix.length) : -1
      const common = slash >= 0 ? key.slice(0, slash + 1) : undefined
      if (common !== undefined && prefixes.at(-1) === common) continue
      if (found.length + prefixes.length >= request.maxKeys) {
        truncated = true
        break
      }
      if (common !== undefined) prefixes.push(common)
      else found.push(key)
    }
    return { keys: found, prefixes, truncated }
  }
  return { sorted, probe, requests }
}

/** What listing each range (StartAfter its start, up to its end) gets: every key once, in order. */
function listRanges(sorted: readonly string[], ranges: readonly KeyRange[]): string[][] {
  return ranges.map((range) =>
    sorted.filter(
      (key) => (range.after === undefined || compareKeys(key, range.after) > 0) && !pastRange(key, range),
    ),
  )
}

async function plan(keys: readonly string[], options: Partial<PlanOptions> & { after: string }) {
  const store = memoryProbe(keys)
  const result = await planBoundaries({ maxRanges: 16, maxProbes: 32, probe: store.probe, ...options })
  const ranges = rangesFrom(options.after, result.boundaries)
  const parts = listRanges(store.sorted, ranges)
  return { ...store, ...result, ranges, parts }
}

function checkPlan(
  result: Awaited<ReturnType<typeof plan>>,
  after: string,
  maxRanges: number,
  maxProbes: number,
) {
  const { boundaries, parts, sorted } = result
  assert.ok(boundaries.length <= maxRanges - 1, `${boundaries.length} boundaries`)
  assert.ok(result.probes <= maxProbes && result.requests.length === result.probes)
  for (const [index, boundary] of boundaries.entries()) {
    assert.ok(compareKeys(boundary, after) > 0, `${boundary} after ${after}`)
    if (index > 0) assert.ok(compareKeys(boundary, boundaries[index - 1] as string) > 0, 'sorted, distinct')
  }
  assert.deepEqual(
    parts.flat(),
    sorted.filter((key) => compareKeys(key, after) > 0),
    'every key after the listed ones in exactly one range, in order',
  )
}

const flat = Array.from({ length: 100_000 }, (_, index) => `key-${String(index).padStart(9, '0')}`)

test('flat keys are split where their characters change, into ranges of similar size', async () => {
  const after = flat[1999] as string
  const result = await plan(flat, { after, maxRanges: 16, maxProbes: 32 })
  checkPlan(result, after, 16, 32)
  assert.ok(result.boundaries.length >= 8, `${result.boundaries.length} boundaries: ${result.boundaries}`)
  const largest = Math.max(...result.parts.map((part) => part.length))
  assert.ok(largest <= 20_000, `largest range ${largest} keys of 98,000`)
  // One-key probes after the page's keys (no Delimiter, MaxKeys 1) once the level is known to be flat.
  assert.ok(
    result.requests.slice(1).every((request) => request.maxKeys === 1 && request.delimiter === undefined),
  )
})

test('nested keys are split at their common prefixes, deeper where a level has too few', async () => {
  const keys: string[] = []
  for (const tenant of ['alpha', 'beta', 'gamma'])
    for (let day = 1; day <= 30; day++)
      for (let n = 0; n < 40; n++) keys.push(`${tenant}/2026-11-${String(day).padStart(2, '0')}/obj-${n}`)
  const after = keys[1500] as string
  const result = await plan(keys, { after, maxRanges: 32, maxProbes: 64 })
  checkPlan(result, after, 32, 64)
  assert.ok(result.boundaries.includes('gamma/'), String(result.boundaries))
  assert.ok(result.boundaries.some((boundary) => boundary.startsWith('gamma/2026-11-')))
  assert.equal(result.requests[0]?.delimiter, '/')
  assert.equal(result.requests[0]?.startAfter, after)
})

test('keys sorting around / and beyond ASCII land in one range each, in S3 order', async () => {
  const odd = [
    'a',
    'a!',
    'a-b',
    'a.b',
    'a/',
    'a/b',
    'a/b/c',
    'a0',
    'a\u007f',
    'aé',
    'a\uffff',
    'a\u{1F600}',
    'b/\u{1F600}/x',
    'b/\uE000/x',
    'b/é/x',
    'é/1',
    'é/2',
    '\u{10FFFF}',
  ]
  const keys = [...odd, ...Array.from({ length: 3000 }, (_, index) => `${odd[index % odd.length]}/${index}`)]
  for (const maxRanges of [2, 5, 40]) {
    const result = await plan(keys, { after: 'a!', maxRanges, maxProbes: 80 })
    checkPlan(result, 'a!', maxRanges, 80)
  }
})

test('compareKeys orders as UTF-8 bytes do', () => {
  const samples = [
    '',
    'a',
    '/',
    '-',
    '.',
    '0',
    'é',
    '\u007f',
    '\u0080',
    '\uE000',
    '\uffff',
    '\u{1F600}',
    '\u{10FFFF}',
  ]
  for (const a of samples)
    for (const b of samples) {
      const pair = [`x${a}y`, `x${b}`]
      assert.equal(
        Math.sign(compareKeys(pair[0] as string, pair[1] as string)),
        Math.sign(Buffer.compare(Buffer.from(pair[0] as string), Buffer.from(pair[1] as string))),
        JSON.stringify(pair),
      )
    }
})

test('ranges: boundaries past every key leave empty ranges, never a lost or doubled key', async () => {
  const keys = ['a', 'b', 'c']
  const ranges = rangesFrom('a', ['b', 'bb', 'zz'])
  assert.deepEqual(listRanges(keys, ranges), [['b'], [], ['c'], []])
  assert.deepEqual(rangesFrom(undefined, []), [{ after: undefined, through: undefined }])
})

test('a plan stops at its probe budget and at one range', async () => {
  const none = await plan(flat, { after: flat[999] as string, maxRanges: 1, maxProbes: 32 })
  assert.equal(none.probes, 0)
  assert.deepEqual(none.boundaries, [])
  const few = await plan(flat, { after: flat[999] as string, maxRanges: 64, maxProbes: 3 })
  checkPlan(few, flat[999] as string, 64, 3)
  assert.equal(few.probes, 3)
  const empty = await plan(flat, { after: flat.at(-1) as string, maxRanges: 8, maxProbes: 8 })
  checkPlan(empty, flat.at(-1) as string, 8, 8)
})
