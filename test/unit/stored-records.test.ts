import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { NO_BUDGET, type SeriesBudget } from '../../src/exposition/usage-budget.js'
import { UsageExposition } from '../../src/exposition/usage-exposition.js'
import type { ExpositionFormat } from '../../src/metrics/exposition/format.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { loadState, saveState } from '../../src/snapshot/state-file.js'
import { figuresOf, measuredBytes, measuredObjects, storedLine } from '../../src/snapshot/stored-records.js'
import { scratchFolder } from '../support/scratch.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

/** A generated snapshot saved and loaded back. */
async function loadedSnapshots(
  t: Parameters<typeof scratchFolder>[0],
): Promise<{ saved: UsageSnapshot; loaded: UsageSnapshot }> {
  const path = join(await scratchFolder(t, 'objstore-stored-'), 'state.json')
  const { snapshot } = generateSnapshot({
    buckets: 500,
    objectsPerBucket: 8,
    sourceId: 's3:http://127.0.0.1:9000',
    completedAtMs: Date.now(),
  })
  await saveState(path, snapshot)
  const loaded = await loadState(path, snapshot.sourceId)
  if (loaded.status !== 'loaded') throw new Error(`not loaded: ${loaded.status}`)
  return { saved: snapshot, loaded: loaded.snapshot }
}

/** A generated snapshot's records saved and loaded back. */
async function loadedRecords(
  t: Parameters<typeof scratchFolder>[0],
): Promise<{ saved: readonly BucketRecord[]; loaded: readonly BucketRecord[] }> {
  const { saved, loaded } = await loadedSnapshots(t)
  return { saved: saved.buckets, loaded: loaded.buckets }
}

/** The usage families of `snapshot` as a scrape serves them, in `format`. */
async function rendered(
  snapshot: UsageSnapshot,
  budget: SeriesBudget,
  format: ExpositionFormat,
): Promise<string> {
  const block = await new UsageExposition('objstore', { budget }).blockFor(snapshot)
  const parts: Buffer[] = []
  for await (const part of block.text(format)) parts.push(part)
  return Buffer.concat(parts).toString('utf8')
}

test('loaded records keep their figures as bytes, read only through figuresOf', async (t) => {
  const { saved, loaded } = await loadedRecords(t)
  assert.equal(loaded.length, saved.length)
  const neverMeasured = saved.filter((record) => record.usage === undefined).length
  assert.ok(
    neverMeasured > 0 && neverMeasured < saved.length,
    'the sample has records with and without figures',
  )
  for (const [index, record] of loaded.entries()) {
    const original = saved[index] as BucketRecord
    // Stored exactly when there are figures to store.
    assert.equal(storedLine(record) !== undefined, original.usage !== undefined, original.name)
    assert.deepEqual(figuresOf(record), original.usage)
    assert.deepEqual(figuresOf(original), original.usage, "a round's record: its own figures")
    const { usage: _figures, ...outline } = original
    // Nothing to enumerate, spread, clone or write: the figures stay bytes until asked for.
    assert.deepEqual({ ...record }, outline, 'spread')
    assert.deepEqual(structuredClone(record), outline, 'cloned')
    assert.deepEqual(JSON.parse(JSON.stringify(record)), JSON.parse(JSON.stringify(outline)), 'as JSON')
    assert.equal(measuredBytes(record), original.usage?.bytes)
    assert.equal(measuredObjects(record), original.usage?.objects)
    assert.equal(measuredBytes(original), original.usage?.bytes)
    // A reader that forgot figuresOf fails loudly instead of seeing a bucket never measured.
    if (original.usage !== undefined) assert.throws(() => record.usage, /read with figuresOf/)
  }
})

test('each read of stored figures is a fresh copy: a reader cannot change what the next one reads', async (t) => {
  const { saved, loaded } = await loadedRecords(t)
  const index = loaded.findIndex((record) => storedLine(record) !== undefined)
  const record = loaded[index] as BucketRecord
  // Immutable by type only (no freeze at run time): written here through a cast.
  const first = figuresOf(record) as unknown as { bytes: number; sizeHistogram: number[] }
  first.bytes = -1
  first.sizeHistogram[0] = -1
  assert.notEqual(figuresOf(record), first)
  assert.deepEqual(figuresOf(record), saved[index]?.usage)
  assert.equal(measuredBytes(record), saved[index]?.usage?.bytes)
})

test('a loaded snapshot saved again is written from its lines, byte for byte', async (t) => {
  const folder = await scratchFolder(t, 'objstore-stored-again-')
  const { saved, loaded } = await loadedSnapshots(t)
  await saveState(join(folder, 'first.json'), saved)
  await saveState(join(folder, 'again.json'), loaded)
  const lines = async (name: string) => (await readFile(join(folder, name), 'utf8')).split('\n').slice(1)
  assert.deepEqual(await lines('again.json'), await lines('first.json'))
})

test('a loaded snapshot renders the same text as the one saved (records sent to the render worker as bytes)', async (t) => {
  const { saved, loaded } = await loadedSnapshots(t)
  for (const budget of [NO_BUDGET, { topN: 50, maxSeries: 0 }, { topN: 0, maxSeries: 20_000 }]) {
    for (const format of ['text', 'openmetrics'] as const) {
      const text = await rendered(loaded, budget, format)
      assert.ok(text.includes('bucket="bucket-00499"') || budget.topN > 0, 'every bucket rendered')
      assert.equal(text, await rendered(saved, budget, format), `${format}, ${JSON.stringify(budget)}`)
    }
  }
})
