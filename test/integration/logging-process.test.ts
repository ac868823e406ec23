import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { waitForHttpOk } from '../support/http-ready.js'
import { LogReceiver, parseNdjson } from '../support/log-receiver.js'
import { type ExporterProcess, freePort, runCommand, startExporterProcess } from '../support/process.js'

const TOKEN = 'process-token-marker-c0ffee'
/** The escape character every ANSI colour sequence starts with. */
const ESC = '\u001b'
/** Bound on each test: child processes start in about a second; this only stops a hang. */
const BOUND = { timeout: 60_000 }

let cwd = ''
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'logging-process-'))
})
after(() => rm(cwd, { recursive: true, force: true }))

/** Starts the real exporter with `env` on a free port and waits until it answers /healthz. */
async function startExporter(
  t: TestContext,
  env: Record<string, string>,
): Promise<{ child: ExporterProcess; port: number }> {
  const port = await freePort()
  // Load shedding off (as startServingProcess does): a busy machine's start-up delay is not what
  // these tests are about, and a shed scrape would fail them.
  const child = startExporterProcess(
    { MAX_EVENT_LOOP_DELAY_MS: '0', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: cwd, ...env },
    cwd,
  )
  t.after(() => child.kill('SIGKILL'))
  await waitForHttpOk(`http://127.0.0.1:${port}/healthz`, () => child.child.exitCode === null)
  return { child, port }
}

async function stop(child: ExporterProcess): Promise<number | string> {
  child.kill('SIGTERM')
  return child.exited
}

async function scrape(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  assert.equal(response.status, 200)
  return parseExposition(await response.text())
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('console modes on the real process output', () => {
  const drives = () => `${cwd},${cwd}/missing-drive`

  it('json: every stdout line is one JSON object with pino fields', BOUND, async (t) => {
    const { child, port } = await startExporter(t, { LOG_MODE: 'json', DRIVES: drives() })
    await scrape(port)
    assert.equal(await stop(child), 0)
    const entries = jsonLines(child.stdout())
    const messages = entries.map((entry) => entry.msg)
    assert.ok(messages.includes('objstore-exporter listening'))
    assert.ok(messages.includes('drive offline'))
    assert.equal(messages.at(-1), 'shutting down')
    for (const entry of entries) {
      assert.equal(typeof entry.level, 'number')
      assert.equal(typeof entry.time, 'number')
      assert.equal(typeof entry.pid, 'number')
    }
    const banner = entries.find((entry) => entry.msg === 'objstore-exporter listening')
    assert.deepEqual(banner?.logTargets, ['console'])
    assert.equal(child.stderr(), '')
  })

  it('quiet: nothing at info (no banner, no shutdown line), warnings still printed', BOUND, async (t) => {
    const { child, port } = await startExporter(t, { LOG_MODE: 'quiet', DRIVES: drives() })
    assert.equal(child.stdout(), '', 'nothing printed once started')
    await scrape(port)
    assert.equal(await stop(child), 0)
    assert.deepEqual(
      jsonLines(child.stdout()).map((entry) => [entry.level, entry.msg]),
      [[40, 'drive offline']],
    )
  })

  it('pretty: human-readable lines, without colour codes when stdout is not a terminal', BOUND, async (t) => {
    const { child, port } = await startExporter(t, { LOG_MODE: 'pretty', DRIVES: drives() })
    await scrape(port)
    assert.equal(await stop(child), 0)
    const stdout = child.stdout()
    assert.ok(!stdout.includes(ESC), 'no ANSI escape sequences')
    assert.match(stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: objstore-exporter listening$/m)
    assert.match(stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: drive offline$/m)
    assert.match(stdout, /^ {4}drive: ".*missing-drive"$/m)
    assert.throws(() => JSON.parse(stdout.split('\n')[0] ?? ''), SyntaxError)
  })
})

describe('the console format by flag and by terminal', () => {
  it('--log.format logfmt: key=value lines, time, level and msg first', BOUND, async () => {
    const run = await runCommand(
      ['scan', '--once', '--log.format', 'logfmt', '--log.level', 'debug'],
      { DATA_DIR: cwd },
      cwd,
    )
    assert.equal(run.code, 0, run.stderr)
    // scan --once prints its result on stdout and logs on stderr.
    const logLines = run.stderr.split('\n').filter((line) => line !== '')
    assert.ok(logLines.length >= 2, run.stderr)
    for (const line of logLines)
      assert.match(
        line,
        /^time=\S+Z level=(debug|info) msg=("[^"]*"|\S+)( [\w.]+=("(\\.|[^"\\])*"|\S+))*$/,
        line,
      )
    assert.ok(logLines.some((line) => / msg="usage scan finished" .* sourceUp=true/.test(line)))
  })

  it('by default: pretty on a terminal (a pseudo-terminal here), JSON on a pipe', BOUND, async () => {
    const piped = await runCommand(['scan', '--once'], { DATA_DIR: cwd }, cwd)
    assert.equal(piped.code, 0, piped.stderr)
    const finished = piped.stderr.split('\n').find((line) => line.includes('usage scan finished'))
    assert.equal((JSON.parse(finished ?? '') as { level: number }).level, 30)
    // script(1) runs the command with a pseudo-terminal as its stdout, as an operator's shell does.
    const entry = fileURLToPath(new URL('../../src/main.ts', import.meta.url))
    const command = [process.execPath, '--import', import.meta.resolve('tsx'), entry, 'scan', '--once']
      .map((word) => `'${word}'`)
      .join(' ')
    const terminal = spawnSync('script', ['-qfec', command, '/dev/null'], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATA_DIR: cwd },
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(terminal.status, 0, `${terminal.stdout}${terminal.stderr}`)
    // What the terminal shows: scan --once's progress bar (stderr is the terminal too) is drawn
    // after a carriage return and erased (ESC [K) before each line, so it leaves nothing.
    const shown = terminal.stdout.replaceAll(new RegExp(`\r[^\r\n]*?${ESC}\\[K`, 'g'), '')
    const plain = shown.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')
    assert.match(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: usage scan finished\r?$/m)
    assert.ok(terminal.stdout.includes(ESC), 'coloured on a terminal')
  })
})

describe('console+http in the real process', () => {
  it(
    'ships with the token, never prints it, reports its metrics and flushes on SIGTERM',
    BOUND,
    async (t) => {
      const receiver = await LogReceiver.start()
      t.after(() => receiver.close())
      const { child, port } = await startExporter(t, {
        LOG_TARGETS: 'console+http',
        LOG_HTTP_ENDPOINT: receiver.url,
        LOG_HTTP_AUTH_TOKEN: TOKEN,
        // Nothing is sent before shutdown: the batch never fills and the interval never passes.
        LOG_HTTP_BATCH_SIZE: '1000',
        LOG_HTTP_FLUSH_INTERVAL_MS: '600000',
      })
      // The first scan's summary is logged at info: waited for, so the queue's count is known.
      await child.waitForOutput('usage scan finished')
      const exposition = await scrape(port)
      assert.equal(sampleValue(exposition, 'objstore_logger_online', { target: 'http' }), 1)
      // Fastify's and the exporter's start-up lines and the scan line wait in the queue.
      assert.equal(sampleValue(exposition, 'objstore_logger_queue_entries', { target: 'http' }), 3)
      assert.equal(sampleValue(exposition, 'objstore_logger_sent_total', { target: 'http' }), 0)
      assert.equal(sampleValue(exposition, 'objstore_scrape_collector_success', { collector: 'logger' }), 1)
      assert.equal(receiver.requests.length, 0)

      assert.equal(await stop(child), 0)
      assert.equal(receiver.requests.length, 1)
      const [request] = receiver.requests
      assert.equal(request?.headers.authorization, `Bearer ${TOKEN}`)
      assert.equal(request?.headers['content-type'], 'application/x-ndjson')
      const shipped = parseNdjson(request?.body ?? '')
      // The scan may end before or after the server listens: compared without order.
      assert.deepEqual(
        shipped.map((entry) => entry.msg).sort(),
        [
          `Server listening at http://127.0.0.1:${port}`,
          'objstore-exporter listening',
          'shutting down',
          'usage scan finished',
        ].sort(),
      )
      // The console printed the same entries.
      const printed = jsonLines(child.stdout())
      assert.deepEqual(printed, shipped)
      const listening = printed.find((entry) => entry.msg === 'objstore-exporter listening')
      assert.equal(listening?.logEndpoint, receiver.url)
      assert.deepEqual(listening?.logTargets, ['console', 'http'])
      assert.doesNotMatch(child.stdout() + child.stderr() + request?.body, new RegExp(TOKEN))
    },
  )

  it('bounds the shutdown flush by its deadline when the receiver never answers', BOUND, async (t) => {
    const receiver = await LogReceiver.start({ answer: () => 'hang' })
    t.after(() => receiver.close())
    const { child } = await startExporter(t, {
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: receiver.url.replace('http://', 'http://shipper:url-secret-d00d@'),
      LOG_HTTP_FLUSH_INTERVAL_MS: '600000',
      LOG_HTTP_TIMEOUT_MS: '600000',
      SHUTDOWN_TIMEOUT_MS: '2000',
    })
    assert.equal(await stop(child), 0)
    assert.equal(receiver.requests.length, 1)
    const printed = jsonLines(child.stdout())
    const last = printed.at(-1)
    assert.equal(last?.msg, 'log entries left undelivered at shutdown')
    // Everything but the target's own reports was queued for it, and is what is left.
    assert.equal(last?.entries, printed.filter((entry) => entry.logTarget === undefined).length)
    assert.equal(last?.endpoint, receiver.url.replace('http://', 'http://[redacted]@'))
    assert.doesNotMatch(child.stdout() + child.stderr(), /url-secret-d00d/)
  })

  it(
    'refuses to start without an endpoint, with one configuration line and exit code 2',
    BOUND,
    async (t) => {
      const child = startExporterProcess({ LOG_TARGETS: 'http', LOG_HTTP_AUTH_TOKEN: TOKEN }, cwd)
      t.after(() => child.kill('SIGKILL'))
      assert.equal(await child.exited, 2)
      assert.equal(
        child.stderr(),
        'objstore-exporter: invalid configuration: LOG_HTTP_ENDPOINT: required when LOG_TARGETS includes http\n',
      )
      assert.equal(child.stdout(), '')

      const withCredentials = startExporterProcess(
        { LOG_TARGETS: 'http', LOG_HTTP_ENDPOINT: 'ftp://shipper:url-secret-beef@logs.example/in' },
        cwd,
      )
      t.after(() => withCredentials.kill('SIGKILL'))
      assert.equal(await withCredentials.exited, 2)
      assert.match(withCredentials.stderr(), /LOG_HTTP_ENDPOINT="ftp:\/\/\[redacted\]@logs\.example\/in"/)
      assert.doesNotMatch(withCredentials.stderr(), /url-secret-beef/)
    },
  )
})
