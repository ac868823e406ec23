import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { buildApp } from '../../src/app.js'
import { CollectorRunner } from '../../src/collectors/runner.js'
import { RuntimeMetrics } from '../../src/collectors/runtime.js'
import { loadConfig } from '../../src/config/load.js'
import { createSecretRedactor } from '../../src/logging/secret-redactor.js'
import { ScrapeAssembler } from '../../src/metrics/exposition/scrape-assembler.js'
import { Readiness } from '../../src/server/readiness.js'
import { deepFreeze } from '../support/deep-freeze.js'
import { CapturedLogs } from '../support/exporter.js'

test('an answer of 500 is logged with its route and error, though request lines are off', async () => {
  const config = loadConfig(
    { DATA_DIR: '/nonexistent/objstore-data', HOST: '127.0.0.1', PORT: '1' },
    { dotenvPath: false },
  )
  const logs = new CapturedLogs()
  const logger = pino({ level: 'info' }, logs)
  // A snapshot no loader lets through any more (a completion time of 1e300 ms): the landing page
  // cannot render its date, whatever else it shows.
  const snapshot = deepFreeze({
    sourceName: 'fs',
    sourceId: 'fs:/data',
    sourceUp: true,
    completedAtMs: 1e300,
    buckets: [],
  })
  const runtime = new RuntimeMetrics()
  const app = await buildApp({
    config,
    logger,
    assembler: new ScrapeAssembler({
      namespace: config.METRICS_NAMESPACE,
      collection: new CollectorRunner([], logger),
      runtime,
    }),
    readiness: new Readiness(),
    redactor: createSecretRedactor([]),
    status: {
      startedAtMs: Date.now(),
      namespace: config.METRICS_NAMESPACE,
      source: config.BUCKETS_SOURCE,
      scanIntervalSeconds: config.SCAN_INTERVAL_SECONDS,
      collectors: () => [],
      drives: () => [],
      waitingFor: () => [],
      usage: () => snapshot,
      sourceFailure: () => undefined,
      nextScanAtMs: () => undefined,
    },
  })
  try {
    const page = await app.inject({ method: 'GET', url: '/?a=1' })
    assert.equal(page.statusCode, 500)
    const failed = logs.lines.filter((line) => line.msg === 'request failed')
    assert.equal(failed.length, 1)
    assert.equal(failed[0]?.level, 50)
    assert.equal(failed[0]?.route, '/')
    assert.equal(failed[0]?.statusCode, 500)
    assert.match(String((failed[0]?.err as { message?: string } | undefined)?.message), /Invalid time value/)
    // Answers below 500 stay unlogged, as every other request.
    const before = logs.lines.length
    assert.equal((await app.inject({ method: 'GET', url: '/no-such-page' })).statusCode, 404)
    assert.equal((await app.inject({ method: 'POST', url: '/metrics' })).statusCode, 405)
    assert.equal(logs.lines.length, before)
  } finally {
    await app.close()
    runtime.close()
  }
})
