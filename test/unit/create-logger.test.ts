import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLoggerCollector } from '../../src/collectors/logger.js'
import { loadConfig } from '../../src/config/load.js'
import { createLogger } from '../../src/logging/create-logger.js'
import { MetricSet } from '../../src/metrics/metric-set.js'
import { CapturedOutput } from '../support/capture.js'
import { httpStats } from '../support/log-receiver.js'

// An endpoint nothing listens on: these tests look at what reaches the console, not at delivery.
const UNUSED_ENDPOINT = 'http://127.0.0.1:9/ingest'

function configFor(env: Record<string, string>) {
  return loadConfig({ DATA_DIR: '/tmp', ...env }, { dotenvPath: false })
}

describe('createLogger redaction', () => {
  it('censors credential fields wherever a logged object carries them', () => {
    const output = new CapturedOutput()
    const { logger } = createLogger(configFor({}), { consoleOutput: output })
    logger.info(
      {
        headers: { authorization: 'Bearer field-secret-1' },
        req: { headers: { authorization: 'Basic field-secret-2', cookie: 'session=field-secret-3' } },
        client: { secretAccessKey: 'field-secret-4', sessionToken: 'field-secret-5' },
        webhook: { authToken: 'field-secret-6', headers: { Authorization: 'Bearer field-secret-7' } },
        token: 'field-secret-8',
      },
      'request made',
    )
    assert.doesNotMatch(output.text, /field-secret/)
    const [entry] = output.jsonLines()
    assert.deepEqual(entry?.headers, { authorization: '[redacted]' })
    assert.deepEqual(entry?.client, { secretAccessKey: '[redacted]', sessionToken: '[redacted]' })
  })

  it('scrubs configured secret values from message text, error messages and stacks', () => {
    const token = 'tok"en\\marker-7f3a'
    const config = configFor({
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: 'http://alice:url-password-91c2@127.0.0.1:9/ingest',
      LOG_HTTP_BATCH_SIZE: '1000',
      LOG_HTTP_FLUSH_INTERVAL_MS: '3600000',
    })
    const output = new CapturedOutput()
    const { logger } = createLogger(
      { ...config, LOG_HTTP_AUTH_TOKEN: token, LOG_HTTP_ENDPOINT: UNUSED_ENDPOINT },
      {
        consoleOutput: output,
      },
    )
    logger.info(`the token is ${token}`)
    logger.error({ err: new Error(`request with ${token} failed`) }, 'delivery failed')
    logger.warn({ detail: { nested: { deeper: `Bearer ${token}` } } }, 'deep')
    assert.equal(output.jsonLines().length, 3)
    assert.doesNotMatch(output.text, /marker-7f3a/)
    assert.match(output.text, /the token is \[redacted\]/)

    const withUrlCredentials = new CapturedOutput()
    const second = createLogger(config, { consoleOutput: withUrlCredentials })
    second.logger.info({ url: config.LOG_HTTP_ENDPOINT }, 'raw endpoint logged by mistake')
    assert.doesNotMatch(withUrlCredentials.text, /url-password-91c2/)
    assert.equal(withUrlCredentials.jsonLines().length, 1)
  })

  it("scrubs the AWS SDK's own credentials from the environment (session token included)", () => {
    const output = new CapturedOutput()
    const { logger } = createLogger(configFor({ BUCKETS_SOURCE: 's3' }), {
      consoleOutput: output,
      environment: {
        AWS_ACCESS_KEY_ID: 'ASIAAMBIENTKEY01',
        AWS_SECRET_ACCESS_KEY: 'ambient-secret-3e9d',
        AWS_SESSION_TOKEN: 'ambient-session-77b0',
      },
    })
    // What an SDK error carries when S3 echoes credentials back (ExpiredToken, SignatureDoesNotMatch).
    const sdkError = Object.assign(new Error('The provided token has expired.'), {
      'Token-0': 'ambient-session-77b0',
      AWSAccessKeyId: 'ASIAAMBIENTKEY01',
    })
    logger.warn({ err: sdkError, note: 'signed with ambient-secret-3e9d' }, 'listing failed')
    assert.doesNotMatch(output.text, /ASIAAMBIENTKEY01|ambient-secret-3e9d|ambient-session-77b0/)
    assert.equal(output.jsonLines().length, 1)
  })
})

describe('createLogger targets and levels', () => {
  it('pretty colours its output only when the output is a terminal', () => {
    const terminal = Object.assign(new CapturedOutput(), { isTTY: true })
    const pipe = new CapturedOutput()
    for (const output of [terminal, pipe]) {
      createLogger(configFor({ LOG_MODE: 'pretty' }), { consoleOutput: output }).logger.warn(
        { drive: '/d' },
        'drive offline',
      )
    }
    assert.ok(terminal.text.includes('\u001b['), 'coloured on a terminal')
    assert.ok(!pipe.text.includes('\u001b['), 'plain elsewhere')
    assert.match(pipe.text, /WARN: drive offline\n {4}drive: "\/d"\n/)
  })

  it('logfmt writes key=value lines as node_exporter does: time, level, msg first, nested keys dotted', () => {
    const output = new CapturedOutput()
    const { logger } = createLogger(configFor({ LOG_MODE: 'logfmt' }), { consoleOutput: output })
    logger.warn(
      {
        drive: '/mnt/disk 1',
        online: false,
        warning: { code: 'E1' },
        buckets: ['a', 'b'],
        note: 'say "hi"\n',
      },
      'drive offline',
    )
    const line = output.text.trim()
    assert.match(line, /^time=\d{4}-\d\d-\d\dT[\d:.]+Z level=warn msg="drive offline" pid=\d+ /)
    assert.ok(line.includes(' drive="/mnt/disk 1" online=false warning.code=E1 '), line)
    assert.ok(line.includes(' buckets="[\\"a\\",\\"b\\"]" note="say \\"hi\\"\\n"'), line)
    assert.equal(output.text.split('\n').length, 2, 'one line an entry')
  })

  it('auto is pretty on a terminal and json elsewhere', () => {
    const terminal = Object.assign(new CapturedOutput(), { isTTY: true })
    const pipe = new CapturedOutput()
    for (const output of [terminal, pipe])
      createLogger(configFor({}), { consoleOutput: output }).logger.info('hello')
    assert.match(terminal.text, /INFO.*: .*hello/)
    assert.equal(pipe.jsonLines()[0]?.msg, 'hello')
  })

  it('quiet keeps info off the console while the http target still receives it', async () => {
    const output = new CapturedOutput()
    const logging = createLogger(
      configFor({
        LOG_MODE: 'quiet',
        LOG_TARGETS: 'console+http',
        LOG_HTTP_ENDPOINT: UNUSED_ENDPOINT,
        LOG_HTTP_FLUSH_INTERVAL_MS: '3600000',
      }),
      { consoleOutput: output },
    )
    logging.logger.info('for the pipeline only')
    logging.logger.warn('for both')
    assert.deepEqual(
      output.jsonLines().map((entry) => entry.msg),
      ['for both'],
    )
    assert.equal(httpStats(logging)?.queued, 2)
    await logging.close(0)
  })

  it('builds no target for silent, and only the console by default', async () => {
    const silent = createLogger(
      configFor({ LOG_LEVEL: 'silent', LOG_TARGETS: 'console+http', LOG_HTTP_ENDPOINT: UNUSED_ENDPOINT }),
    )
    assert.deepEqual(silent.targets, [])
    assert.deepEqual(silent.deliveries, [])
    await silent.close(0)
    const plain = createLogger(configFor({}), { consoleOutput: new CapturedOutput() })
    assert.deepEqual(
      plain.targets.map((target) => target.name),
      ['console'],
    )
    assert.deepEqual(plain.deliveries, [])
  })

  it('a comma list builds the same targets as console+http; the banner names them and the endpoint', async () => {
    const output = new CapturedOutput()
    const logging = createLogger(
      configFor({
        LOG_TARGETS: 'http, console',
        LOG_HTTP_ENDPOINT: 'http://shipper:banner-secret-7f3a@127.0.0.1:9/ingest',
        LOG_HTTP_FLUSH_INTERVAL_MS: '3600000',
      }),
      { consoleOutput: output },
    )
    assert.deepEqual(
      logging.targets.map((target) => target.name),
      ['console', 'http'],
    )
    assert.deepEqual(logging.banner, {
      logTargets: ['console', 'http'],
      logEndpoint: 'http://[redacted]@127.0.0.1:9/ingest',
    })
    logging.logger.info('to both')
    assert.deepEqual(
      output.jsonLines().map((entry) => entry.msg),
      ['to both'],
    )
    assert.equal(httpStats(logging)?.queued, 1)
    await logging.close(0)
  })

  it('with the http target alone, reports its own trouble to the fallback output', async () => {
    const fallback = new CapturedOutput()
    const logging = createLogger(
      configFor({
        LOG_TARGETS: 'http',
        LOG_HTTP_ENDPOINT: UNUSED_ENDPOINT,
        LOG_HTTP_FLUSH_INTERVAL_MS: '3600000',
      }),
      { fallbackReportOutput: fallback },
    )
    assert.deepEqual(
      logging.targets.map((target) => target.name),
      ['http'],
    )
    logging.logger.info('never delivered')
    await logging.close(0)
    const reports = fallback.jsonLines()
    assert.ok(reports.length >= 1)
    assert.ok(reports.every((entry) => entry.logTarget === 'http'))
    assert.equal(reports.at(-1)?.msg, 'log entries left undelivered at shutdown')
    assert.equal(httpStats(logging)?.dropped, 1)
  })
})

describe("log targets' counters", () => {
  it('the logger collector writes each delivering target under one family per counter, its name as `target`', async () => {
    const logging = createLogger(
      configFor({
        LOG_MODE: 'quiet',
        LOG_TARGETS: 'console+http',
        LOG_HTTP_ENDPOINT: UNUSED_ENDPOINT,
        LOG_HTTP_FLUSH_INTERVAL_MS: '3600000',
      }),
      { consoleOutput: new CapturedOutput() },
    )
    logging.logger.info('queued')
    logging.logger.warn('queued too')
    // Only the targets that count deliveries: the console writes synchronously and has none.
    assert.deepEqual(
      logging.deliveries.map((delivery) => delivery.target),
      ['http'],
    )
    const collector = createLoggerCollector(logging.deliveries)
    const set = new MetricSet(collector.families)
    await collector.collect(set, new AbortController().signal)
    const http = { target: 'http' }
    assert.deepEqual(set.samples('logger_queue_entries'), [{ labels: http, value: 2 }])
    assert.deepEqual(set.samples('logger_sent_total'), [{ labels: http, value: 0 }])
    assert.deepEqual(set.samples('logger_failed_total'), [{ labels: http, value: 0 }])
    assert.deepEqual(set.samples('logger_dropped_total'), [{ labels: http, value: 0 }])
    assert.deepEqual(set.samples('logger_online'), [{ labels: http, value: 1 }])
    await logging.close(0)
    assert.deepEqual(
      set.samples('logger_queue_entries'),
      [{ labels: http, value: 2 }],
      'read once, at collect',
    )
    const after = new MetricSet(collector.families)
    await collector.collect(after, new AbortController().signal)
    assert.deepEqual(after.samples('logger_dropped_total'), [{ labels: http, value: 2 }])
    // No family names a target: a new one is another series, not another family.
    for (const name of Object.keys(collector.families)) assert.doesNotMatch(name, /http|console/, name)
  })
})
