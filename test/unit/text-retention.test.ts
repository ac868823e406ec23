import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { UsageExposition } from '../../src/exposition/usage-exposition.js'
import type { ExpositionBlock } from '../../src/metrics/exposition/block.js'
import { scrapeBody } from '../../src/metrics/exposition/body.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

/**
 * How long a snapshot's text lives, whatever clients without gzip do (issue 11, item 3): the
 * blocks and their text must become garbage once their snapshot is replaced, not be kept alive by
 * a release timer or by the readers. Checked with the collector itself (WeakRef, a forced full
 * collection), not with the clock.
 */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

async function collectGarbage(): Promise<void> {
  // A few rounds: finalisation of one object can let go of others.
  for (let round = 0; round < 4; round++) {
    gc()
    await nextTurn()
  }
}

const contentOf = (block: ExpositionBlock) => ({ families: [], blocks: [block] })

/** A whole body read, as a client reads it. */
async function readAll(parts: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<number> {
  let length = 0
  for await (const part of parts) length += part.length
  return length
}

/** Above INLINE_BUCKETS, so rendered on the worker as large snapshots are. */
const BUCKETS = 600

test('after one plain scrape, gzip-only scrapes of later snapshots leave no old snapshot alive', async () => {
  const exposition = new UsageExposition('objstore')
  const blocks: Array<WeakRef<ExpositionBlock>> = []
  for (let index = 0; index < 6; index++) {
    const { snapshot } = generateSnapshot({ buckets: BUCKETS, objectsPerBucket: 3, seed: index + 1 })
    const block = await exposition.blockFor(snapshot)
    blocks.push(new WeakRef(block))
    const plain = index === 0
    const body = await scrapeBody(contentOf(block), 'text', !plain)
    assert.equal(await readAll(body.parts), body.byteLength)
  }
  await collectGarbage()
  const alive = blocks.flatMap((ref, index) => (ref.deref() ? [index] : []))
  assert.deepEqual(alive, [5], 'only the current snapshot is alive')
  exposition.close()
})

test('slow plain readers of successive snapshots hold a buffer each, not a copy of the text each', async () => {
  const exposition = new UsageExposition('objstore')
  const readers: Array<AsyncIterator<Buffer>> = []
  await collectGarbage()
  // external: buffers' memory, those transferred from the render worker included.
  const before = process.memoryUsage().external
  let textBytes = 0
  let compressedBytes = 0
  for (let index = 0; index < 6; index++) {
    const { snapshot } = generateSnapshot({ buckets: 2000, objectsPerBucket: 3, seed: index + 1 })
    const block = await exposition.blockFor(snapshot)
    const zipped = await scrapeBody(contentOf(block), 'text', true)
    compressedBytes = Math.max(compressedBytes, zipped.byteLength)
    const body = await scrapeBody(contentOf(block), 'text', false)
    textBytes = Math.max(textBytes, body.byteLength)
    // A reader that took its first parts and then stopped reading (a slow client).
    const reader = iterate(body.parts)
    for (let part = 0; part < 3; part++) assert.equal((await reader.next()).done, false)
    readers.push(reader)
  }
  await collectGarbage()
  const held = process.memoryUsage().external - before
  // One text held (and one being inflated), and per reader its snapshot's compressed form and the
  // few 256 KB buffers it is sending (the old code held a whole text per reader: 6.5 texts).
  const bound = 2 * textBytes + readers.length * (compressedBytes + (2 << 20))
  assert.ok(
    held < bound,
    `${(held / 2 ** 20).toFixed(1)} MB held by ${readers.length} slow readers ` +
      `(text ${(textBytes / 2 ** 20).toFixed(1)} MB, bound ${(bound / 2 ** 20).toFixed(1)} MB)`,
  )
  for (const reader of readers) await reader.return?.()
  exposition.close()
})

function iterate(parts: Iterable<Buffer> | AsyncIterable<Buffer>): AsyncIterator<Buffer> {
  if (Symbol.asyncIterator in parts) return parts[Symbol.asyncIterator]()
  const iterator = parts[Symbol.iterator]()
  return { next: async () => iterator.next() }
}
