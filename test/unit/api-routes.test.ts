import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { createSecretRedactor } from '../../src/logging/secret-redactor.js'
import { apiRoutes } from '../../src/server/api/routes.js'
import type { ExporterStatus } from '../../src/server/status.js'

const SECRET = 'wJalrXUtnFEMI-api-K7MDENG-EXAMPLEKEY'

test('the JSON API blanks secrets out of every error text it shows', async (t) => {
  const status: ExporterStatus = {
    startedAtMs: Date.UTC(2026, 0, 1),
    namespace: 'objstore',
    source: 's3',
    scanIntervalSeconds: 300,
    collectors: () => [{ name: 'usage', state: 'failing', error: `render failed near ${SECRET}` }],
    drives: () => [{ path: '/mnt/a', state: { online: false, reason: `statfs ${SECRET} hung` } }],
    waitingFor: () => [],
    usage: () => ({
      sourceName: 's3',
      sourceId: 's3:x',
      sourceUp: false,
      completedAtMs: Date.UTC(2026, 0, 1),
      buckets: [],
    }),
    nextScanAtMs: () => undefined,
    sourceFailure: () => `SignatureDoesNotMatch: the key ${SECRET} does not match`,
  }
  const app = Fastify()
  t.after(() => app.close())
  await app.register(apiRoutes, { status, redactor: createSecretRedactor([SECRET]) })
  for (const url of ['/api/v1/status', '/api/v1/drives', '/api/v1/buckets']) {
    const answer = await app.inject({ method: 'GET', url })
    assert.equal(answer.statusCode, 200, url)
    assert.ok(!answer.body.includes(SECRET), `${url}: ${answer.body}`)
  }
  const shown = (await app.inject({ method: 'GET', url: '/api/v1/status' })).json()
  assert.equal(shown.sourceError, 'SignatureDoesNotMatch: the key [redacted] does not match')
  assert.equal(shown.collectors[0].error, 'render failed near [redacted]')
  assert.equal(shown.nextScanAt, null)
})
