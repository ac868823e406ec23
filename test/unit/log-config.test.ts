import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseLogTargets } from '../../src/config/env/logging.js'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { withoutCredentials } from '../../src/config/url-credentials.js'

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp', ...env }, { dotenvPath: false })

function configErrorLines(env: Record<string, string>): readonly string[] {
  try {
    load(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.lines
    throw error
  }
  assert.fail('expected a ConfigError')
}

describe('LOG_TARGETS', () => {
  it('defaults to the console and parses every combination', () => {
    assert.equal(load({}).LOG_TARGETS, 'console')
    assert.deepEqual(parseLogTargets('console'), ['console'])
    assert.deepEqual(parseLogTargets('http'), ['http'])
    assert.deepEqual(parseLogTargets('console+http'), ['console', 'http'])
  })

  it('refuses an unknown target with one line naming the choices', () => {
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'syslog' }), [
      'LOG_TARGETS="syslog": expected one of console, http, console+http',
    ])
  })
})

describe('LOG_HTTP_* variables', () => {
  it('has defaults, and needs an endpoint only when the http target is on', () => {
    const config = load({})
    assert.equal(config.LOG_HTTP_ENDPOINT, '')
    assert.equal(config.LOG_HTTP_BATCH_SIZE, 100)
    assert.equal(config.LOG_HTTP_FLUSH_INTERVAL_MS, 1000)
    assert.equal(config.LOG_HTTP_QUEUE_SIZE, 10000)
    assert.equal(config.LOG_HTTP_TIMEOUT_MS, 5000)
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'console+http' }), [
      'LOG_HTTP_ENDPOINT: required when LOG_TARGETS includes http',
    ])
    assert.equal(
      load({ LOG_TARGETS: 'http', LOG_HTTP_ENDPOINT: 'https://logs.example/in' }).LOG_TARGETS,
      'http',
    )
  })

  it('refuses a non-http URL without echoing its credentials', () => {
    const lines = configErrorLines({
      LOG_TARGETS: 'http',
      LOG_HTTP_ENDPOINT: 'ftp://alice:hunter2-pass@logs.example/x',
    })
    assert.deepEqual(lines, [
      'LOG_HTTP_ENDPOINT="ftp://[redacted]@logs.example/x": expected an http:// or https:// URL',
    ])
    const unparsable = configErrorLines({ LOG_TARGETS: 'http', LOG_HTTP_ENDPOINT: 'alice:hunter2-pass@logs' })
    assert.equal(unparsable.length, 1)
    assert.doesNotMatch(unparsable.join('\n'), /hunter2/)
  })

  it('hides the token, even when it is refused', () => {
    const lines = configErrorLines({ LOG_HTTP_AUTH_TOKEN: 'tok en-with-a-space-secret' })
    assert.equal(lines.length, 1)
    assert.match(lines[0] ?? '', /^LOG_HTTP_AUTH_TOKEN=\(value hidden\): expected /)
    assert.doesNotMatch(lines.join('\n'), /secret/)
  })

  it('refuses two ways to authenticate, and a batch larger than the queue', () => {
    assert.deepEqual(
      configErrorLines({
        LOG_TARGETS: 'http',
        LOG_HTTP_ENDPOINT: 'https://user:pw-secret@logs.example/',
        LOG_HTTP_AUTH_TOKEN: 'token-secret',
        LOG_HTTP_BATCH_SIZE: '500',
        LOG_HTTP_QUEUE_SIZE: '100',
      }),
      [
        'LOG_HTTP_ENDPOINT: has user info in the URL and LOG_HTTP_AUTH_TOKEN is set too; use one way to authenticate',
        'LOG_HTTP_BATCH_SIZE=500: expected at most LOG_HTTP_QUEUE_SIZE (100)',
      ],
    )
  })

  it('refuses numbers out of range with one line each', () => {
    const lines = configErrorLines({
      LOG_HTTP_BATCH_SIZE: '0',
      LOG_HTTP_TIMEOUT_MS: 'soon',
      LOG_HTTP_QUEUE_SIZE: '-5',
    })
    assert.deepEqual([...lines].sort(), [
      'LOG_HTTP_BATCH_SIZE="0": expected an integer >= 1 and <= 10000',
      'LOG_HTTP_QUEUE_SIZE="-5": expected an integer >= 1 and <= 1000000',
      'LOG_HTTP_TIMEOUT_MS="soon": expected an integer >= 1 and <= 600000',
    ])
  })
})

describe('withoutCredentials', () => {
  it('keeps scheme, host and path, and drops user info and query values', () => {
    assert.equal(withoutCredentials('http://127.0.0.1:8080/ingest'), 'http://127.0.0.1:8080/ingest')
    assert.equal(
      withoutCredentials('https://alice:s3cr%40t@logs.example/in?token=abc&tenant=7#frag'),
      'https://[redacted]@logs.example/in?token=[redacted]&tenant=[redacted]',
    )
    assert.equal(withoutCredentials('https://tokenonly@logs.example/'), 'https://[redacted]@logs.example/')
    assert.equal(withoutCredentials('not a url alice:pw@host?k=v'), 'not a url [redacted]@host?[redacted]')
  })
})
