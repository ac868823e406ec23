import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { MAX_EVENT_BODY_BYTES } from '../../src/server/routes/events.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'
import { waitFor } from '../support/wait-for.js'

/**
 * POST /events on the whole exporter (fs source, in-process, a real HTTP port): on only with
 * EVENTS_AUTH_TOKEN, its token in a header or the query, its bounds, its counters, and what an
 * event does today: the next round starts early.
 */

const TOKEN = 'events-token-0123456789abcdef'

function put(bucket: string, key: string): string {
  return JSON.stringify({
    Records: [
      { eventName: 's3:ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key, size: 5 } } },
    ],
  })
}

async function post(
  running: RunningExporter,
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await fetch(`${running.baseUrl}${path}`, { method: 'POST', body, headers })
  await response.arrayBuffer()
  return response.status
}

async function started(t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>) {
  const running = await startExporter({ SCAN_INTERVAL_SECONDS: '3600', ...env })
  t.after(() => running.close())
  return running
}

test('without EVENTS_AUTH_TOKEN there is no endpoint: 404, and no events_* family', async (t) => {
  const running = await started(t, {})
  assert.equal(await post(running, '/events', put('photos', 'a'), { authorization: `Bearer ${TOKEN}` }), 404)
  const scrape = await running.scrape()
  assert.ok(!scrape.samples.some((sample) => sample.name.startsWith('objstore_events_')))
})

test('the token: in the header or the query; missing, wrong or partial is 401, and counted', async (t) => {
  const running = await started(t, {
    EVENTS_AUTH_TOKEN: TOKEN,
    EVENTS_DEBOUNCE_SECONDS: '0',
    BUCKETS_EXCLUDE: 'private-*',
  })
  const body = put('photos', 'a')
  const json = { 'content-type': 'application/json' }
  assert.equal(await post(running, '/events', body, json), 401)
  assert.equal(await post(running, '/events', body, { ...json, authorization: 'Bearer wrong' }), 401)
  assert.equal(await post(running, '/events', body, { ...json, authorization: `Bearer ${TOKEN}x` }), 401)
  assert.equal(await post(running, '/events?token=wrong', body, json), 401)
  assert.equal(await post(running, `/events?token=${TOKEN.slice(0, -1)}`, body, json), 401)
  assert.equal(await post(running, '/events', body, { ...json, authorization: `Bearer ${TOKEN}` }), 200)
  // SNS posts text/plain; RGW may send no content type at all.
  assert.equal(
    await post(running, `/events?token=${TOKEN}`, body, { 'content-type': 'text/plain; charset=UTF-8' }),
    200,
  )
  assert.equal(await post(running, `/events?token=${TOKEN}`, new TextEncoder().encode(body)), 200)
  assert.equal(await post(running, `/events?token=${TOKEN}`, put('private-ledger', 'b')), 200)
  const scrape = await running.scrape()
  assert.equal(sampleValue(scrape, 'objstore_events_refused_total', { reason: 'unauthorized' }), 5)
  assert.equal(sampleValue(scrape, 'objstore_events_received_total'), 4)
  assert.equal(sampleValue(scrape, 'objstore_events_applied_total'), 3)
  assert.equal(
    sampleValue(scrape, 'objstore_events_refused_total', { reason: 'not_scanned' }),
    1,
    'BUCKETS_EXCLUDE leaves it out',
  )
  // The token is never logged: not in the query form, not in the header.
  assert.ok(!JSON.stringify(running.logs.lines).includes(TOKEN))
})

test('per bucket: a measured bucket has its series; names no measured bucket has, however many, have none', async (t) => {
  const running = await started(t, { EVENTS_AUTH_TOKEN: TOKEN, EVENTS_DEBOUNCE_SECONDS: '0' })
  await mkdir(join(running.config.DATA_DIR, 'photos'), { recursive: true })
  await running.exporter.scanner.scanNow()
  const auth = { authorization: `Bearer ${TOKEN}` }
  assert.equal(await post(running, '/events', put('photos', 'a'), auth), 200)
  for (let index = 0; index < 50; index++)
    assert.equal(await post(running, '/events', put(`invented-${index}`, 'k'), auth), 200)
  const scrape = await running.scrape()
  assert.equal(sampleValue(scrape, 'objstore_events_received_total'), 51)
  assert.equal(sampleValue(scrape, 'objstore_bucket_events_received_total', { bucket: 'photos' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_events_applied_total', { bucket: 'photos' }), 1)
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_events_refused_total', { bucket: 'photos', reason: 'not_a_change' }),
    0,
  )
  const named = new Set(
    scrape.samples
      .filter((sample) => sample.name.startsWith('objstore_bucket_events_'))
      .map((s) => s.labels.bucket),
  )
  assert.deepEqual([...named], ['photos'])
})

test('bounds: a body over the limit is 413 before it is read whole; the server scrape is unaffected', async (t) => {
  const running = await started(t, { EVENTS_AUTH_TOKEN: TOKEN, EVENTS_DEBOUNCE_SECONDS: '0' })
  const auth = { authorization: `Bearer ${TOKEN}` }
  const large = `{"Records":[],"pad":"${'x'.repeat(MAX_EVENT_BODY_BYTES)}"}`
  assert.equal(await post(running, '/events', large, auth), 413)
  // Without a length: the body is cut off at the limit as it streams in.
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let sent = 0; sent <= MAX_EVENT_BODY_BYTES; sent += 64 * 1024)
        controller.enqueue(new Uint8Array(64 * 1024))
      controller.close()
    },
  })
  const streamed = await fetch(`${running.baseUrl}/events`, {
    method: 'POST',
    body: chunks,
    headers: auth,
    duplex: 'half',
  } as RequestInit)
  assert.equal(streamed.status, 413)
  assert.equal(await post(running, '/events', 'not json', auth), 400)
  assert.equal(await post(running, '/events', `${'['.repeat(100_000)}`, auth), 400)
  const scrape = await running.scrape()
  assert.equal(sampleValue(scrape, 'objstore_events_refused_total', { reason: 'too_large' }), 2)
  assert.equal(sampleValue(scrape, 'objstore_events_refused_total', { reason: 'malformed' }), 2)
})

test('an event starts the next round early: the new object is counted within the debounce, not the hour', async (t) => {
  const running = await started(t, { EVENTS_AUTH_TOKEN: TOKEN, EVENTS_DEBOUNCE_SECONDS: '0.05' })
  const bucket = join(running.config.DATA_DIR, 'photos')
  await mkdir(bucket, { recursive: true })
  await writeFile(join(bucket, 'a.jpg'), Buffer.alloc(5))
  const before = running.exporter.scanner.snapshot
  assert.ok(
    !before?.buckets.some((record) => record.name === 'photos'),
    'the first round ran before the bucket',
  )
  assert.equal(
    await post(running, '/events', put('photos', 'a.jpg'), { authorization: `Bearer ${TOKEN}` }),
    200,
  )
  await waitFor(
    'the early round',
    () => running.exporter.scanner.snapshot?.buckets.some((r) => r.name === 'photos') === true,
  )
  const scrape = await running.scrape()
  assert.equal(sampleValue(scrape, 'objstore_events_applied_total'), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'photos' }), 1)
  // No debug level here: the key is not in the log.
  assert.ok(!JSON.stringify(running.logs.lines).includes('a.jpg'))
})

test('object keys are logged at debug only', async (t) => {
  const running = await started(t, {
    EVENTS_AUTH_TOKEN: TOKEN,
    EVENTS_DEBOUNCE_SECONDS: '0',
    LOG_LEVEL: 'debug',
  })
  assert.equal(
    await post(running, '/events', put('photos', 'secret-plans.pdf'), { authorization: `Bearer ${TOKEN}` }),
    200,
  )
  const lines = running.logs.lines.filter((line) => JSON.stringify(line).includes('secret-plans.pdf'))
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg, line.bucket]),
    [[20, 'change event', 'photos']],
  )
})
