import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { CREDENTIAL_URL_VARIABLES, envSchema, SECRET_VARIABLES } from '../../src/config/schema.js'
import { credentialsOf, withoutCredentials } from '../../src/config/url-credentials.js'
import { parseLogTargets } from '../../src/logging/settings.js'
import { LOG_TARGET_DEFINITIONS, LOG_TARGET_NAMES } from '../../src/logging/targets/index.js'

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
  it('defaults to the console and is parsed once into a list of names', () => {
    assert.deepEqual(load({}).LOG_TARGETS, ['console'])
    assert.deepEqual(load({ LOG_TARGETS: 'console' }).LOG_TARGETS, ['console'])
    const withEndpoint = { LOG_HTTP_ENDPOINT: 'https://logs.example/in' }
    assert.deepEqual(load({ LOG_TARGETS: 'http', ...withEndpoint }).LOG_TARGETS, ['http'])
    assert.deepEqual(load({ LOG_TARGETS: 'console+http', ...withEndpoint }).LOG_TARGETS, ['console', 'http'])
  })

  it('accepts a comma-separated list too, in any order, built in registry order', () => {
    const withEndpoint = { LOG_HTTP_ENDPOINT: 'https://logs.example/in' }
    assert.deepEqual(load({ LOG_TARGETS: 'console,http', ...withEndpoint }).LOG_TARGETS, ['console', 'http'])
    assert.deepEqual(load({ LOG_TARGETS: 'http, console', ...withEndpoint }).LOG_TARGETS, ['console', 'http'])
    assert.deepEqual(parseLogTargets('http+console'), { targets: ['console', 'http'] })
    assert.deepEqual(
      LOG_TARGET_NAMES.map((name) => parseLogTargets(name)),
      LOG_TARGET_NAMES.map((name) => ({ targets: [name] })),
    )
  })

  it('refuses an unknown target with one line naming it and the choices', () => {
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'syslog' }), [
      'LOG_TARGETS="syslog": unknown target syslog; expected names from console, http',
    ])
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'console,syslog+file' }), [
      'LOG_TARGETS="console,syslog+file": unknown targets syslog, file; expected names from console, http',
    ])
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'syslog,syslog' }), [
      'LOG_TARGETS="syslog,syslog": unknown target syslog; expected names from console, http',
    ])
  })

  it('refuses a target named twice and a list of the wrong shape', () => {
    assert.deepEqual(configErrorLines({ LOG_TARGETS: 'console,console' }), [
      'LOG_TARGETS="console,console": console named twice; expected each target at most once',
    ])
    for (const value of ['console;http', 'console,,http', '+console', 'Console']) {
      assert.deepEqual(configErrorLines({ LOG_TARGETS: value }), [
        `LOG_TARGETS=${JSON.stringify(value)}: expected names from console, http, joined by + or , (such as console+http)`,
      ])
    }
  })

  it("a target's required variables are named when it is on, empty or blank alike", () => {
    for (const value of ['http', 'console+http', 'console,http']) {
      for (const endpoint of [undefined, '', '  ']) {
        const env: Record<string, string> = { LOG_TARGETS: value }
        if (endpoint !== undefined) env.LOG_HTTP_ENDPOINT = endpoint
        assert.deepEqual(configErrorLines(env), [
          'LOG_HTTP_ENDPOINT: required when LOG_TARGETS includes http',
        ])
      }
    }
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
    assert.deepEqual(
      load({ LOG_TARGETS: 'http', LOG_HTTP_ENDPOINT: 'https://logs.example/in' }).LOG_TARGETS,
      ['http'],
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

describe('credentialsOf', () => {
  it('decodes the user info, and keeps a percent sign that starts no escape as written', () => {
    assert.deepEqual(credentialsOf('https://alice:s3cr%40t@logs.example/'), {
      username: 'alice',
      password: 's3cr@t',
    })
    // `%of` is no escape: decodeURIComponent throws on it, and the password was then no secret at
    // all (never scrubbed, never sent).
    assert.deepEqual(credentialsOf('http://shipper:50%off-%41pass@127.0.0.1:9/in'), {
      username: 'shipper',
      password: '50%off-Apass',
    })
    assert.deepEqual(credentialsOf('http://%E2%82%AC%ff:x@host/'), { username: '€%ff', password: 'x' })
  })
})

describe('the target registry', () => {
  it("puts each target's variables in the schema and its secrets among the hidden ones", () => {
    for (const target of LOG_TARGET_DEFINITIONS) {
      for (const variable of Object.keys(target.env)) assert.ok(variable in envSchema.properties, variable)
      for (const variable of target.secretVariables ?? []) assert.ok(SECRET_VARIABLES.has(variable), variable)
      for (const variable of target.credentialUrlVariables ?? [])
        assert.ok(CREDENTIAL_URL_VARIABLES.has(variable), variable)
      for (const variable of target.requiredWhenOn ?? []) assert.ok(variable in target.env, variable)
    }
    assert.deepEqual(LOG_TARGET_NAMES, ['console', 'http'])
  })
})
