import assert from 'node:assert/strict'
import { type TestContext, test } from 'node:test'
import { sampleValue } from '../support/exposition.js'
import { type Answer, LogReceiver } from '../support/log-receiver.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, type ServingProcess, startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The log receiver misbehaving under the real process (the target's own behaviour, retries and
 * queue bounds are in log-http-target.test.ts and log-http-stuck-receiver.test.ts): what a
 * Prometheus user sees. Scans every second at debug level keep entries coming.
 */

const NS = 'objstore_logger'
/** The HTTP target's series of each logger family. */
const HTTP = { target: 'http' }

async function startWithReceiver(
  t: TestContext,
  answer: (index: number) => Answer,
  env: Record<string, string> = {},
): Promise<{ exporter: ServingProcess; receiver: LogReceiver }> {
  const receiver = await LogReceiver.start({ answer })
  t.after(() => receiver.close())
  const cwd = await scratchFolder(t, 'objstore-log-faults-')
  const exporter = await startServingProcess(
    t,
    {
      DATA_DIR: cwd,
      SCAN_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'debug',
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: receiver.url,
      LOG_HTTP_FLUSH_INTERVAL_MS: '50',
      LOG_HTTP_BATCH_SIZE: '10',
      ...env,
    },
    cwd,
  )
  return { exporter, receiver }
}

const reports = (exporter: ServingProcess, msg: string) =>
  exporter.logs().filter((line) => line.logTarget === 'http' && line.msg === msg)

test('a receiver answering 401 (a wrong token): scrapes unaffected, failures counted, logged once; recovers', async (t) => {
  let refusing = true
  const { exporter, receiver } = await startWithReceiver(t, () =>
    refusing ? { status: 401 } : { status: 200 },
  )
  await waitFor('several refused batches', () => receiver.requests.length >= 4, { timeoutMs: 20_000 })
  for (let scrape = 0; scrape < 5; scrape++) {
    const exposition = await exporter.scrape()
    assert.equal(sampleValue(exposition, `${NS}_online`, HTTP), 0)
    assert.ok(sampleValue(exposition, `${NS}_failed_total`, HTTP) > 0)
    assert.equal(sampleValue(exposition, `${NS}_sent_total`, HTTP), 0)
    assert.equal(sampleValue(exposition, 'objstore_scrape_collector_success', { collector: 'logger' }), 1)
  }
  const failed = sampleValue(await exporter.scrape(), `${NS}_failed_total`, HTTP)
  assert.equal(reports(exporter, 'log receiver rejected a batch; its entries are dropped').length, 1)

  refusing = false
  await waitFor(
    'delivery again',
    async () => sampleValue(await exporter.scrape(), `${NS}_online`, HTTP) === 1,
    {
      timeoutMs: 20_000,
    },
  )
  const after = await exporter.scrape()
  assert.ok(sampleValue(after, `${NS}_sent_total`, HTTP) > 0)
  assert.ok(sampleValue(after, `${NS}_failed_total`, HTTP) >= failed, 'a counter never goes down')
  assert.equal(reports(exporter, 'log receiver accepting entries again').length, 1)
  assert.ok(receiver.acceptedEntries().some((entry) => entry.msg === 'usage scan finished'))
  await assertCleanExit(exporter)
})

test('a receiver slower than LOG_HTTP_TIMEOUT_MS: batches retried, none lost or doubled, scrapes unaffected; recovers', async (t) => {
  let slow = true
  const { exporter, receiver } = await startWithReceiver(
    t,
    () => (slow ? { status: 200, delayMs: 400 } : { status: 200 }),
    { LOG_HTTP_TIMEOUT_MS: '100' },
  )
  await waitFor('several timed-out attempts', () => receiver.requests.length >= 4, { timeoutMs: 20_000 })
  for (let scrape = 0; scrape < 5; scrape++) {
    const exposition = await exporter.scrape()
    assert.equal(sampleValue(exposition, `${NS}_online`, HTTP), 0)
    assert.equal(
      sampleValue(exposition, `${NS}_sent_total`, HTTP),
      0,
      'an answer that came too late is not a delivery',
    )
  }
  const failing = reports(exporter, 'log delivery failing; retrying with backoff')
  assert.equal(failing.length, 1)
  assert.equal(failing[0]?.problem, 'no answer within 100 ms')

  slow = false
  await waitFor(
    'delivery again',
    async () => sampleValue(await exporter.scrape(), `${NS}_online`, HTTP) === 1,
    {
      timeoutMs: 20_000,
    },
  )
  await assertCleanExit(exporter)
  const accepted = receiver.acceptedEntries().map((entry) => JSON.stringify(entry))
  assert.equal(new Set(accepted).size, accepted.length, 'no entry delivered twice')
  // Everything printed was shipped (the queue never filled), but the target's own reports.
  const printed = exporter.logs().filter((line) => line.logTarget === undefined)
  assert.deepEqual(
    accepted,
    printed.map((line) => JSON.stringify(line)),
  )
})
