import assert from 'node:assert/strict'
import { test } from 'node:test'
import { EllipsisError, expandDriveList, expandEllipsis } from '../../src/config/drive-ranges.js'

test('a range expands to one path per number', () => {
  assert.deepEqual(expandEllipsis('/mnt/disk{1...4}'), [
    '/mnt/disk1',
    '/mnt/disk2',
    '/mnt/disk3',
    '/mnt/disk4',
  ])
})

test('a leading zero keeps the padding, as MinIO does', () => {
  assert.deepEqual(expandEllipsis('/d{08...11}'), ['/d08', '/d09', '/d10', '/d11'])
})

test('several ranges expand to their cartesian product, in order', () => {
  assert.deepEqual(expandEllipsis('/srv{1...2}/disk{1...2}/data'), [
    '/srv1/disk1/data',
    '/srv1/disk2/data',
    '/srv2/disk1/data',
    '/srv2/disk2/data',
  ])
})

test('a list mixes plain paths and ranges, trims blanks and drops duplicates', () => {
  assert.deepEqual(expandDriveList(' /a , /b{1...2},, /a'), ['/a', '/b1', '/b2'])
})

test('malformed or runaway patterns are refused', () => {
  assert.throws(() => expandEllipsis('/d{3...1}'), EllipsisError)
  assert.throws(() => expandEllipsis('/d{1..3}'), EllipsisError)
  assert.throws(() => expandEllipsis('/d{1...}'), EllipsisError)
  assert.throws(() => expandEllipsis('/d{1...100000}'), EllipsisError)
  assert.throws(() => expandEllipsis('/a{1...200}/b{1...200}'), EllipsisError)
})
