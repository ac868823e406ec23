import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { backoffDelayMs, retryAfterMs } from '../../src/logging/targets/http/backoff.js'
import { classify } from '../../src/logging/targets/http/batch-poster.js'

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1000 }

  it('doubles the ceiling per consecutive failure and draws from its upper half', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, policy, () => 0)),
      [50, 100, 200, 400],
    )
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, policy, () => 1)),
      [100, 200, 400, 800],
    )
  })

  it('never exceeds the maximum, however many failures', () => {
    for (const attempt of [5, 10, 100, 10_000]) {
      assert.equal(
        backoffDelayMs(attempt, policy, () => 1),
        1000,
      )
      assert.equal(
        backoffDelayMs(attempt, policy, () => 0),
        500,
      )
    }
  })
})

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and ignores what it cannot read', () => {
    const now = Date.parse('2026-12-02T12:00:00Z')
    assert.equal(retryAfterMs('3', now), 3000)
    assert.equal(retryAfterMs(['7'], now), 7000)
    assert.equal(retryAfterMs('Wed, 02 Dec 2026 12:00:05 GMT', now), 5000)
    assert.equal(retryAfterMs('Wed, 02 Dec 2026 11:00:00 GMT', now), 0)
    assert.equal(retryAfterMs(undefined, now), undefined)
    assert.equal(retryAfterMs('soon', now), undefined)
  })
})

describe('classify', () => {
  it('delivers on 2xx, retries 408, 429 and 5xx, drops other statuses', () => {
    assert.deepEqual(classify(200), { kind: 'delivered' })
    assert.deepEqual(classify(204), { kind: 'delivered' })
    assert.deepEqual(classify(500), { kind: 'retry', problem: 'HTTP 500' })
    assert.deepEqual(classify(503, '2'), { kind: 'retry', problem: 'HTTP 503', retryAfterMs: 2000 })
    assert.deepEqual(classify(429), { kind: 'retry', problem: 'HTTP 429' })
    assert.deepEqual(classify(408), { kind: 'retry', problem: 'HTTP 408' })
    assert.deepEqual(classify(400), { kind: 'rejected', problem: 'HTTP 400' })
    assert.deepEqual(classify(401), { kind: 'rejected', problem: 'HTTP 401' })
    assert.deepEqual(classify(413), { kind: 'rejected', problem: 'HTTP 413' })
    assert.deepEqual(classify(301), { kind: 'rejected', problem: 'HTTP 301' })
  })
})
