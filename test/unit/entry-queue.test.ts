import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EntryQueue } from '../../src/logging/targets/http/entry-queue.js'

describe('EntryQueue', () => {
  it('drops the oldest entry when full and says so', () => {
    const queue = new EntryQueue<number>(3)
    const dropped = [1, 2, 3, 4, 5].map((entry) => queue.pushDroppingOldest(entry))
    assert.deepEqual(dropped, [0, 0, 0, 1, 1])
    assert.equal(queue.size, 3)
    assert.deepEqual(queue.takeFront(10), [3, 4, 5])
  })

  it('counts the in-flight batch against the bound, and drops the new entry when it holds every slot', () => {
    const queue = new EntryQueue<number>(4)
    for (const entry of [1, 2, 3, 4]) queue.pushDroppingOldest(entry)
    const batch = queue.takeFront(3)
    // One slot left for the queue while 3 entries are in flight.
    assert.equal(queue.pushDroppingOldest(5, batch.length), 1)
    assert.deepEqual([queue.size], [1])
    queue.restoreFront(batch)
    assert.deepEqual(queue.takeFront(4), [1, 2, 3, 5])

    const full = new EntryQueue<number>(2)
    full.pushDroppingOldest(1)
    full.pushDroppingOldest(2)
    const inFlight = full.takeFront(2)
    assert.equal(full.pushDroppingOldest(3, inFlight.length), 1)
    assert.equal(full.size, 0)
  })

  it('puts a retried batch back in front, in order, across the ring boundary', () => {
    const queue = new EntryQueue<string>(5)
    for (const entry of ['a', 'b', 'c', 'd']) queue.pushDroppingOldest(entry)
    assert.deepEqual(queue.takeFront(3), ['a', 'b', 'c'])
    for (const entry of ['e', 'f', 'g']) queue.pushDroppingOldest(entry)
    const batch = queue.takeFront(2)
    assert.deepEqual(batch, ['d', 'e'])
    queue.restoreFront(batch)
    assert.deepEqual(queue.takeFront(10), ['d', 'e', 'f', 'g'])
  })

  it('refuses to restore more than fits and clears to empty', () => {
    const queue = new EntryQueue<number>(2)
    queue.pushDroppingOldest(1)
    queue.pushDroppingOldest(2)
    assert.throws(() => queue.restoreFront([0]), RangeError)
    assert.equal(queue.clear(), 2)
    assert.equal(queue.size, 0)
    assert.deepEqual(queue.takeFront(1), [])
    assert.throws(() => new EntryQueue(0), RangeError)
  })
})
