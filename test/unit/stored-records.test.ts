import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { NO_BUDGET, type SeriesBudget } from '../../src/collectors/usage-budget.js'
import { UsageExposition } from '../../src/collectors/usage-exposition.js'
import type { ExpositionFormat } from '../../src/metrics/exposition/format.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { loadState, saveState } from '../../src/snapshot/state-file.js'
import { measuredBytes, measuredObjects, storedLine } from '../../src/snapshot/stored-records.js'
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

test('loaded records keep their figures as bytes, and every way of reading them sees plain figures', async (t) => {
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
    assert.deepEqual(record, original)
    assert.deepEqual({ ...record }, original, 'spread')
    assert.deepEqual(structuredClone(record), original, 'cloned (as to the render worker)')
    assert.deepEqual(JSON.parse(JSON.stringify(record)), JSON.parse(JSON.stringify(original)), 'as JSON')
    assert.deepEqual(Object.keys(record), Object.keys(original), 'the same properties, in order')
    assert.equal(measuredBytes(record), original.usage?.bytes)
    assert.equal(measuredObjects(record), original.usage?.objects)
    assert.equal(measuredBytes(original), original.usage?.bytes)
  }
})

test('each read of stored figures is a fresh copy: a reader cannot change what the next one reads', async (t) => {
  const { saved, loaded } = await loadedRecords(t)
  const index = loaded.findIndex((record) => storedLine(record) !== undefined)
  const record = loaded[index] as BucketRecord
  // Immutable by type only (no freeze at run time): written here through a cast.
  const first = record.usage as unknown as { bytes: number; sizeHistogram: number[] }
  first.bytes = -1
  first.sizeHistogram[0] = -1
  assert.notEqual(record.usage, first)
  assert.deepEqual(record.usage, saved[index]?.usage)
  assert.equal(measuredBytes(record), saved[index]?.usage?.bytes)
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
