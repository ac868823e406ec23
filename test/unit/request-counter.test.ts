import assert from 'node:assert/strict'
import { test } from 'node:test'
import { listingPagesBetween, RequestCounter } from '../../src/sources/request-counter.js'

test('listing pages between two counts: successful List answers only, by operation', () => {
  const counter = new RequestCounter('s3')
  counter.sent('ListObjectsV2')
  counter.failed('ListObjectsV2')
  const before = counter.counts()
  for (let page = 0; page < 3; page++) counter.sent('ListObjectsV2')
  // A throttled page retried: two requests, one page.
  counter.failed('ListObjectsV2')
  counter.sent('ListObjectsV2')
  counter.sent('ListMultipartUploads')
  counter.failed('ListMultipartUploads')
  counter.sent('GetBucketVersioning')
  const after = counter.counts()
  assert.deepEqual(
    listingPagesBetween(before, after),
    new Map([
      ['ListObjectsV2', 3],
      ['ListMultipartUploads', 0],
    ]),
  )
  // Counts are copies: what is counted later does not change them.
  counter.sent('ListBuckets')
  assert.equal(after.requests.has('ListBuckets'), false)
  assert.equal(counter.counts().requests.get('ListObjectsV2'), 5)
})
