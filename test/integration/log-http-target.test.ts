import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { type Config, loadConfig } from '../../src/config/load.js'
import { createLogger, type LoggerBundle } from '../../src/logging/create-logger.js'
import { CapturedOutput } from '../support/capture.js'
import { httpStats, LogReceiver, parseNdjson } from '../support/log-receiver.js'
import { waitFor } from '../support/wait-for.js'

const TOKEN = 'log-token-marker-5b1e9d'
/** Short retry pacing so a test sees several attempts within its bounded waits. */
const FAST_BACKOFF = { baseMs: 20, maxMs: 100 }

const opened: { close(): Promise<unknown> }[] = []
after(async () => {
  for (const thing of opened.reverse()) await thing.close()
})

async function startReceiver(options: Parameters<typeof LogReceiver.start>[0] = {}): Promise<LogReceiver> {
  const receiver = await LogReceiver.start(options)
  opened.push(receiver)
  return receiver
}

function httpConfig(endpoint: string, env: Record<string, string> = {}): Config {
  return loadConfig(
    { DATA_DIR: '/tmp', LOG_TARGETS: 'console+http', LOG_HTTP_ENDPOINT: endpoint, ...env },
    { dotenvPath: false },
  )
}

function startLogging(config: Config): { logging: LoggerBundle; console: CapturedOutput } {
  const console = new CapturedOutput()
  const logging = createLogger(config, { consoleOutput: console, retryBackoff: FAST_BACKOFF })
  opened.push({ close: () => logging.close(2000) })
  return { logging, console }
}

const seqs = (entries: Record<string, unknown>[]) =>
  entries.filter((entry) => typeof entry.seq === 'number').map((entry) => entry.seq as number)
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index)

describe('HTTP log target against a real receiver', () => {
  it('POSTs NDJSON batches with the documented headers: full batches at once, the rest at the interval', async () => {
    const receiver = await startReceiver()
    const { logging, console } = startLogging(
      httpConfig(receiver.url, {
        LOG_HTTP_AUTH_TOKEN: TOKEN,
        LOG_HTTP_BATCH_SIZE: '5',
        LOG_HTTP_FLUSH_INTERVAL_MS: '300',
      }),
    )
    for (let seq = 0; seq < 12; seq++) logging.logger.info({ seq }, 'entry')
    await waitFor('two full batches', () => receiver.requests.length >= 2)
    await waitFor('the partial batch at the flush interval', () => receiver.requests.length >= 3)
    // The receiver holds the last batch before the target has read the answer and counted it.
    await waitFor('the target to count every entry', () => httpStats(logging)?.sent === 12)

    assert.equal(receiver.requests.length, 3)
    for (const request of receiver.requests) {
      assert.equal(request.method, 'POST')
      assert.equal(request.url, '/ingest')
      assert.equal(request.headers['content-type'], 'application/x-ndjson')
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`)
      assert.match(request.headers['user-agent'] ?? '', /^objstore-exporter\/\d+\.\d+\.\d+/)
      assert.equal(request.headers.connection, 'keep-alive')
      assert.ok(request.body.endsWith('\n'), 'every entry, the last included, ends with a newline')
    }
    const connections = new Set(receiver.requests.map((request) => request.remotePort))
    assert.equal(connections.size, 1, 'all batches went over one kept-alive connection')
    assert.deepEqual(
      receiver.requests.map((request) => parseNdjson(request.body).length),
      [5, 5, 2],
    )
    const entries = receiver.acceptedEntries()
    assert.deepEqual(seqs(entries), range(0, 12))
    // Each line is the entry exactly as the json console prints it.
    assert.deepEqual(entries, console.jsonLines())
    for (const entry of entries) {
      assert.equal(entry.level, 30)
      assert.equal(entry.msg, 'entry')
      assert.equal(typeof entry.time, 'number')
    }
    assert.deepEqual(httpStats(logging), {
      sent: 12,
      failed: 0,
      dropped: 0,
      queued: 0,
      online: true,
    })
  })

  it('sends the token as a bearer header and never logs it, on either target', async () => {
    const receiver = await startReceiver()
    const { logging, console } = startLogging(
      httpConfig(receiver.url, { LOG_HTTP_AUTH_TOKEN: TOKEN, LOG_HTTP_FLUSH_INTERVAL_MS: '20' }),
    )
    logging.logger.info({ headers: { authorization: `Bearer ${TOKEN}` } }, 'a request went out')
    logging.logger.warn(`configured token: ${TOKEN}`)
    logging.logger.error({ err: new Error(`rejected ${TOKEN}`) }, 'an error')
    await waitFor('delivery', () => receiver.acceptedEntries().length === 3)
    assert.equal(receiver.requests[0]?.headers.authorization, `Bearer ${TOKEN}`)
    const bodies = receiver.requests.map((request) => request.body).join('')
    assert.doesNotMatch(bodies, new RegExp(TOKEN))
    assert.doesNotMatch(console.text, new RegExp(TOKEN))
    assert.equal(console.jsonLines().length, 3)
  })

  it('turns user info in the endpoint into Basic auth and logs the endpoint without it', async () => {
    const receiver = await startReceiver({
      answer: (index) => (index === 0 ? { status: 503 } : { status: 200 }),
    })
    const endpoint = receiver.url.replace('http://', 'http://shipper:url-secret-77aa@')
    const { logging, console } = startLogging(httpConfig(endpoint, { LOG_HTTP_FLUSH_INTERVAL_MS: '20' }))
    logging.logger.info('first')
    await waitFor('delivery after one retry', () => receiver.acceptedEntries().length === 1)
    const expected = `Basic ${Buffer.from('shipper:url-secret-77aa').toString('base64')}`
    assert.equal(receiver.requests[0]?.headers.authorization, expected)
    const reports = console.jsonLines().filter((entry) => entry.logTarget === 'http')
    assert.equal(reports[0]?.endpoint, receiver.url.replace('http://', 'http://[redacted]@'))
    assert.doesNotMatch(console.text, /url-secret-77aa/)
    assert.doesNotMatch(console.text, new RegExp(Buffer.from('shipper:url-secret-77aa').toString('base64')))
  })

  it('retries 500, 429 and 503 with backoff and delivers every entry exactly once, in order', async () => {
    const answers = [{ status: 500 }, { status: 429, headers: { 'retry-after': '0' } }, { status: 503 }]
    const receiver = await startReceiver({ answer: (index) => answers[index] ?? { status: 200 } })
    const { logging, console } = startLogging(
      httpConfig(receiver.url, { LOG_HTTP_BATCH_SIZE: '10', LOG_HTTP_FLUSH_INTERVAL_MS: '20' }),
    )
    for (let seq = 0; seq < 25; seq++) logging.logger.info({ seq }, 'entry')
    await waitFor('25 entries accepted', () => receiver.acceptedEntries().length >= 25)
    for (let seq = 25; seq < 50; seq++) logging.logger.info({ seq }, 'entry')
    await waitFor('50 entries accepted', () => receiver.acceptedEntries().length >= 50)
    // The receiver has the last batch before the target has read its answer: wait for the count.
    await waitFor('the target to count them', () => httpStats(logging)?.sent === 50)

    assert.deepEqual(
      receiver.requests.slice(0, 4).map((request) => request.status),
      [500, 429, 503, 200],
    )
    // The three failed attempts carried the same first batch.
    const firstBodies = new Set(receiver.requests.slice(0, 4).map((request) => request.body))
    assert.equal(firstBodies.size, 1)
    assert.deepEqual(seqs(receiver.acceptedEntries()), range(0, 50))
    assert.deepEqual(httpStats(logging), {
      sent: 50,
      failed: 0,
      dropped: 0,
      queued: 0,
      online: true,
    })

    const reports = console.jsonLines().filter((entry) => entry.logTarget === 'http')
    assert.deepEqual(
      reports.map((entry) => [entry.msg, entry.problem ?? entry.previousProblem]),
      [
        ['log delivery failing; retrying with backoff', 'HTTP 500'],
        ['log delivery failing; retrying with backoff', 'HTTP 429'],
        ['log delivery failing; retrying with backoff', 'HTTP 503'],
        ['log receiver accepting entries again', 'HTTP 503'],
      ],
    )
  })

  it('drops a batch answered 400 (counted as failed) without retrying it, and goes on', async () => {
    const receiver = await startReceiver({
      answer: (index) => (index === 0 ? { status: 400 } : { status: 200 }),
    })
    const { logging, console } = startLogging(
      httpConfig(receiver.url, { LOG_HTTP_BATCH_SIZE: '4', LOG_HTTP_FLUSH_INTERVAL_MS: '3600000' }),
    )
    for (let seq = 0; seq < 4; seq++) logging.logger.info({ seq }, 'entry')
    await waitFor(
      'the rejected batch',
      () => receiver.requests.length === 1 && receiver.requests[0]?.status === 400,
    )
    await waitFor('the target to count it', () => httpStats(logging)?.failed === 4)
    assert.equal(httpStats(logging)?.online, false)
    for (let seq = 4; seq < 8; seq++) logging.logger.info({ seq }, 'entry')
    await waitFor('the next batch', () => receiver.acceptedEntries().length === 4)
    await waitFor('the target to count it', () => httpStats(logging)?.sent === 4)
    assert.equal(receiver.requests.length, 2)
    assert.deepEqual(seqs(receiver.acceptedEntries()), range(4, 8))
    assert.deepEqual(httpStats(logging), {
      sent: 4,
      failed: 4,
      dropped: 0,
      queued: 0,
      online: true,
    })
    const rejected = console
      .jsonLines()
      .find((entry) => entry.logTarget === 'http' && entry.problem === 'HTTP 400')
    assert.equal(rejected?.msg, 'log receiver rejected a batch; its entries are dropped')
  })

  it('keeps what fits the queue while the receiver is down, drops and counts the oldest, and resumes on its own', async () => {
    const first = await LogReceiver.start()
    const port = first.port
    await first.close()
    const { logging, console } = startLogging(
      httpConfig(`http://127.0.0.1:${port}/ingest`, {
        LOG_HTTP_BATCH_SIZE: '5',
        LOG_HTTP_QUEUE_SIZE: '20',
        LOG_HTTP_FLUSH_INTERVAL_MS: '20',
      }),
    )
    for (let seq = 0; seq < 50; seq++) logging.logger.info({ seq }, 'entry')
    assert.deepEqual(httpStats(logging), {
      sent: 0,
      failed: 0,
      dropped: 30,
      queued: 20,
      online: true,
    })
    await waitFor('a failed attempt', () => httpStats(logging)?.online === false)
    const downReport = console.jsonLines().find((entry) => entry.logTarget === 'http' && entry.problem)
    assert.match(String(downReport?.problem), /ECONNREFUSED/)

    const receiver = await startReceiver({ port })
    await waitFor('the queue to drain', () => httpStats(logging)?.queued === 0, {
      timeoutMs: 15_000,
    })
    assert.deepEqual(seqs(receiver.acceptedEntries()), range(30, 50))
    assert.deepEqual(httpStats(logging), {
      sent: 20,
      failed: 0,
      dropped: 30,
      queued: 0,
      online: true,
    })

    logging.logger.info({ seq: 50 }, 'after the outage')
    await waitFor('a new entry to arrive', () => receiver.acceptedEntries().length === 21)
    const reports = console.jsonLines().filter((entry) => entry.logTarget === 'http')
    assert.deepEqual(
      reports.map((entry) => entry.msg),
      [
        'log queue full; dropping the oldest entries',
        'log delivery failing; retrying with backoff',
        'log receiver accepting entries again',
      ],
    )
    assert.equal(reports[2]?.droppedMeanwhile, 0, 'the drops happened before the failure was noticed')
  })

  it('flushes what is queued on close, and accounts for what it cannot deliver by the deadline', async () => {
    const receiver = await startReceiver()
    const { logging } = startLogging(
      httpConfig(receiver.url, { LOG_HTTP_BATCH_SIZE: '1000', LOG_HTTP_FLUSH_INTERVAL_MS: '3600000' }),
    )
    for (let seq = 0; seq < 7; seq++) logging.logger.info({ seq }, 'entry')
    assert.equal(receiver.requests.length, 0)
    await logging.close(5000)
    assert.deepEqual(seqs(receiver.acceptedEntries()), range(0, 7))
    logging.logger.info({ seq: 7 }, 'after close')
    assert.deepEqual(httpStats(logging), {
      sent: 7,
      failed: 0,
      dropped: 1,
      queued: 0,
      online: true,
    })

    const stuck = await startReceiver({ answer: () => 'hang' })
    const second = startLogging(
      httpConfig(stuck.url, { LOG_HTTP_FLUSH_INTERVAL_MS: '3600000', LOG_HTTP_TIMEOUT_MS: '600000' }),
    )
    for (let seq = 0; seq < 3; seq++) second.logging.logger.info({ seq }, 'entry')
    // Bounded by its deadline although the receiver never answers and the request timeout is long.
    await second.logging.close(200)
    assert.equal(stuck.requests.length, 1)
    assert.deepEqual(httpStats(second.logging), {
      sent: 0,
      failed: 0,
      dropped: 3,
      queued: 0,
      online: false,
    })
    const last = second.console.jsonLines().at(-1)
    assert.equal(last?.msg, 'log entries left undelivered at shutdown')
    assert.equal(last?.entries, 3)
  })
})
