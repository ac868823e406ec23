import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BatchPoster } from '../../src/logging/targets/http/batch-poster.js'
import { LogReceiver } from '../support/log-receiver.js'

test("the URL's user info is sent as Basic auth, a `%` that starts no escape as written", async (t) => {
  const receiver = await LogReceiver.start()
  t.after(() => receiver.close())
  // `50%off` passes the URL parser; decodeURIComponent threw on it and the process would not start.
  const endpoint = receiver.url.replace('http://', 'http://ship%20per:50%off-%41@')
  const poster = new BatchPoster({ endpoint, timeoutMs: 5000, userAgent: 'test' })
  t.after(() => poster.close())
  assert.deepEqual(await poster.post('{"msg":"x"}\n', new AbortController().signal), { kind: 'delivered' })
  assert.equal(
    receiver.requests[0]?.headers.authorization,
    `Basic ${Buffer.from('ship per:50%off-A').toString('base64')}`,
  )
})
