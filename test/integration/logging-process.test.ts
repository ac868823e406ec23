import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ExporterProcess, freePort } from '../support/exporter-process.js'
import { LogReceiver, parseNdjson } from '../support/log-receiver.js'

const TOKEN = 'process-token-marker-c0ffee'
/** The escape character every ANSI colour sequence starts with. */
const ESC = '\u001b'

let dataDir = ''
const running: ExporterProcess[] = []
const receivers: LogReceiver[] = []
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'logging-process-'))
})
after(async () => {
  for (const child of running) await child.stop()
  for (const receiver of receivers) await receiver.close()
  await rm(dataDir, { recursive: true, force: true })
})

/** Starts the real exporter with `env` on a free port and waits until it answers /healthz. */
async function startExporter(env: Record<string, string>): Promise<{ child: ExporterProcess; port: number }> {
  const port = await freePort()
  const child = ExporterProcess.start({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ...env })
  running.push(child)
  await child.waitHealthy(port)
  return { child, port }
}

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  assert.equal(response.status, 200)
  return response.text()
}

function sample(body: string, name: string): number | undefined {
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

describe('console modes on the real process output', () => {
  it('json: every stdout line is one JSON object with pino fields', async () => {
    const { child, port } = await startExporter({
      LOG_MODE: 'json',
      DRIVES: `${dataDir},${dataDir}/missing-drive`,
    })
    await scrape(port)
    assert.deepEqual(await child.stop(), { code: 0, signal: null })
    const entries = child.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>)
    const messages = entries.map((entry) => entry.msg)
    assert.ok(messages.includes('objstore-exporter listening'))
    assert.ok(messages.includes('drive offline'))
    assert.equal(messages.at(-1), 'shutting down')
    for (const entry of entries) {
      assert.equal(typeof entry.level, 'number')
      assert.equal(typeof entry.time, 'number')
      assert.equal(entry.pid, Number(entry.pid))
    }
    const banner = entries.find((entry) => entry.msg === 'objstore-exporter listening')
    assert.deepEqual(banner?.logTargets, ['console'])
    assert.equal(child.stderr, '')
  })

  it('quiet: nothing at info (no banner, no shutdown line), warnings still printed', async () => {
    const { child, port } = await startExporter({
      LOG_MODE: 'quiet',
      DRIVES: `${dataDir},${dataDir}/missing-drive`,
    })
    assert.equal(child.stdout, '', 'nothing printed once started')
    await scrape(port)
    assert.deepEqual(await child.stop(), { code: 0, signal: null })
    const entries = child.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.deepEqual(
      entries.map((entry) => [entry.level, entry.msg]),
      [[40, 'drive offline']],
    )
  })

  it('pretty: human-readable lines, without colour codes when stdout is not a terminal', async () => {
    const { child, port } = await startExporter({
      LOG_MODE: 'pretty',
      DRIVES: `${dataDir},${dataDir}/missing-drive`,
    })
    await scrape(port)
    assert.deepEqual(await child.stop(), { code: 0, signal: null })
    const { stdout } = child
    assert.ok(!stdout.includes(ESC), 'no ANSI escape sequences')
    assert.match(stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: objstore-exporter listening$/m)
    assert.match(stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: drive offline$/m)
    assert.match(stdout, /^ {4}drive: ".*missing-drive"$/m)
    assert.throws(() => JSON.parse(child.stdoutLines()[0] ?? ''), SyntaxError)
  })
})

describe('console+http in the real process', () => {
  it('ships to the receiver with the token, never prints the token, reports its metrics and flushes on SIGTERM', async () => {
    const receiver = await LogReceiver.start()
    receivers.push(receiver)
    const { child, port } = await startExporter({
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: receiver.url,
      LOG_HTTP_AUTH_TOKEN: TOKEN,
      // Nothing is sent before shutdown: the batch never fills and the interval never passes.
      LOG_HTTP_BATCH_SIZE: '1000',
      LOG_HTTP_FLUSH_INTERVAL_MS: '600000',
    })
    const body = await scrape(port)
    assert.equal(sample(body, 'objstore_logger_http_online'), 1)
    // Fastify's and the exporter's start-up lines wait in the queue.
    assert.equal(sample(body, 'objstore_logger_http_queue_entries'), 2)
    assert.equal(sample(body, 'objstore_logger_http_sent_total'), 0)
    assert.match(body, /^objstore_scrape_collector_success\{collector="logger"\} 1$/m)
    assert.equal(receiver.requests.length, 0)

    assert.deepEqual(await child.stop(), { code: 0, signal: null })
    assert.equal(receiver.requests.length, 1)
    const [request] = receiver.requests
    assert.equal(request?.headers.authorization, `Bearer ${TOKEN}`)
    assert.equal(request?.headers['content-type'], 'application/x-ndjson')
    const shipped = parseNdjson(request?.body ?? '')
    assert.deepEqual(
      shipped.map((entry) => entry.msg),
      [`Server listening at http://127.0.0.1:${port}`, 'objstore-exporter listening', 'shutting down'],
    )
    // The console printed the same entries.
    const printed = child.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.deepEqual(printed, shipped)
    assert.equal(printed[1]?.logEndpoint, receiver.url)
    assert.deepEqual(printed[1]?.logTargets, ['console', 'http'])
    assert.doesNotMatch(child.stdout + child.stderr + request?.body, new RegExp(TOKEN))
  })

  it('bounds the shutdown flush by its deadline when the receiver never answers', async () => {
    const receiver = await LogReceiver.start({ answer: () => 'hang' })
    receivers.push(receiver)
    const { child } = await startExporter({
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: receiver.url.replace('http://', 'http://shipper:url-secret-d00d@'),
      LOG_HTTP_FLUSH_INTERVAL_MS: '600000',
      LOG_HTTP_TIMEOUT_MS: '600000',
      SHUTDOWN_TIMEOUT_MS: '2000',
    })
    assert.deepEqual(await child.stop(), { code: 0, signal: null })
    assert.equal(receiver.requests.length, 1)
    const printed = child.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>)
    const last = printed.at(-1)
    assert.equal(last?.msg, 'log entries left undelivered at shutdown')
    // Everything but the target's own reports was queued for it, and is what is left.
    assert.equal(last?.entries, printed.filter((entry) => entry.logTarget === undefined).length)
    assert.equal(last?.endpoint, receiver.url.replace('http://', 'http://[redacted]@'))
    assert.doesNotMatch(child.stdout + child.stderr, /url-secret-d00d/)
  })

  it('refuses to start without an endpoint, with one configuration line and exit code 2', async () => {
    const child = ExporterProcess.start({
      DATA_DIR: dataDir,
      LOG_TARGETS: 'http',
      LOG_HTTP_AUTH_TOKEN: TOKEN,
    })
    running.push(child)
    assert.deepEqual(await child.exited(), { code: 2, signal: null })
    assert.equal(
      child.stderr,
      'objstore-exporter: invalid configuration: LOG_HTTP_ENDPOINT: required when LOG_TARGETS=http (the URL log batches are POSTed to)\n',
    )
    assert.equal(child.stdout, '')

    const withCredentials = ExporterProcess.start({
      DATA_DIR: dataDir,
      LOG_TARGETS: 'http',
      LOG_HTTP_ENDPOINT: 'ftp://shipper:url-secret-beef@logs.example/in',
    })
    running.push(withCredentials)
    assert.deepEqual(await withCredentials.exited(), { code: 2, signal: null })
    assert.match(withCredentials.stderr, /LOG_HTTP_ENDPOINT="ftp:\/\/\[redacted\]@logs\.example\/in"/)
    assert.doesNotMatch(withCredentials.stderr, /url-secret-beef/)
  })
})
