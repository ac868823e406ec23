import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DirtyRanges, type KeyChanges } from '../../src/scanning/dirty-ranges.js'

const marked = (taken: Uint8Array | undefined) =>
  [...(taken ?? [])].flatMap((bit, index) => (bit ? [index] : []))

test('a key marks the range that holds it: after the previous end, up to and including its own', () => {
  const dirty = new DirtyRanges()
  dirty.install('b', ['c', 'm'])
  const changes: KeyChanges = dirty
  changes.markChanged('b', 'c')
  changes.markChanged('b', 'c0')
  changes.markChanged('b', 'zz')
  assert.deepEqual(marked(dirty.take('b')), [0, 1, 2])
  dirty.markChanged('b', 'a')
  assert.deepEqual(marked(dirty.take('b')), [0])
  assert.deepEqual(marked(dirty.take('b')), [], 'taken marks are cleared')
})

test('a bucket without ranges keeps no marks: it is listed whole every round', () => {
  const dirty = new DirtyRanges()
  dirty.markChanged('small', 'k')
  assert.equal(dirty.take('small'), undefined)
  assert.equal(dirty.dirtyCount('small'), 0)
})

test('a flood marks at most every range: memory is one byte a range', () => {
  const dirty = new DirtyRanges()
  dirty.install('b', ['k1', 'k5'])
  for (let index = 0; index < 100_000; index++) dirty.markChanged('b', `k${index}`)
  assert.equal(dirty.dirtyCount('b'), 3)
  assert.equal(dirty.take('b')?.length, 3)
})

test('marks made while a bucket is listed carry onto the new ranges they overlap', () => {
  const dirty = new DirtyRanges()
  dirty.install('b', ['f', 'p'])
  dirty.take('b')
  dirty.markChanged('b', 'g') // range 1: (f, p]
  // The round split (f, p] at 'j' and merged the first range with nothing.
  dirty.install('b', ['f', 'j', 'p'])
  assert.deepEqual(marked(dirty.take('b')), [1, 2])
})

test('a bucket listed for the first time: a mark meanwhile makes every new range dirty', () => {
  const dirty = new DirtyRanges()
  dirty.track('b')
  dirty.markChanged('b', 'x')
  dirty.install('b', ['d', 'q'])
  assert.deepEqual(marked(dirty.take('b')), [0, 1, 2])
  dirty.track('b')
  dirty.install('b', ['d', 'q'])
  assert.deepEqual(marked(dirty.take('b')), [], 'no mark, no dirty range')
})

test('marks taken by a listing that failed are put back', () => {
  const dirty = new DirtyRanges()
  dirty.install('b', ['m'])
  dirty.markChanged('b', 'a')
  const taken = dirty.take('b') as Uint8Array
  dirty.markChanged('b', 'z')
  dirty.restore('b', taken)
  assert.deepEqual(marked(dirty.take('b')), [0, 1])
})

test('keys compare as S3 orders them (UTF-8 bytes), beyond U+FFFF too', () => {
  const dirty = new DirtyRanges()
  dirty.install('b', ['\uffff'])
  dirty.markChanged('b', '\u{1F600}')
  assert.deepEqual(marked(dirty.take('b')), [1])
})

test('a bucket the round no longer has is forgotten: its marks go', () => {
  const dirty = new DirtyRanges()
  dirty.install('kept', ['m'])
  dirty.install('gone', ['m'])
  dirty.keepOnly(new Set(['kept']))
  assert.equal(dirty.rangeCount('gone'), undefined)
  assert.equal(dirty.rangeCount('kept'), 2)
})
