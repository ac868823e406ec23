import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfiguration } from '../../src/config/load.js'
import { envSchema } from '../../src/config/schema.js'
import { closestName, compareNames, distance } from '../../src/config/unknown-variables.js'
import { refusalLines } from '../support/config-refusal.js'
import { ORDINARY_ENVIRONMENT } from '../support/ordinary-environment.js'

const KNOWN = Object.keys(envSchema.properties)

function load(env: Record<string, string>) {
  return loadConfiguration(env, { dotenvPath: false })
}

function refusal(env: Record<string, string>): readonly string[] {
  return refusalLines(() => load(env))
}

test('an ordinary environment gives no warning and no refusal', () => {
  const { warnings } = load(ORDINARY_ENVIRONMENT)
  assert.deepEqual(warnings, [])
})

test('mistyped security settings stop start-up with one line naming the closest variable', () => {
  const cases: Array<[string, string]> = [
    ['METRICS_TOKEN', 'METRICS_AUTH_TOKEN'],
    ['METRICS_AUTH_TOKN', 'METRICS_AUTH_TOKEN'],
    ['TLS_CERT', 'TLS_CERT_FILE'],
    ['TLS_KEY', 'TLS_KEY_FILE'],
    ['TLS_CA_FILE', 'TLS_CLIENT_CA_FILE'],
    ['METRICS_AUTH_TOKEN_PATH', 'METRICS_AUTH_TOKEN_FILE'],
    ['S3_SECRET_KEY', 'S3_SECRET_ACCESS_KEY'],
    ['metrics_auth_token', 'METRICS_AUTH_TOKEN'],
    // The web configuration file holds TLS and basic auth: a misspelt name would serve without them.
    ['WEB_CONFIG', 'WEB_CONFIG_FILE'],
    ['WEB_CONFIG_PATH', 'WEB_CONFIG_FILE'],
  ]
  for (const [name, closest] of cases) {
    const secret = 'tok3n-value'
    const lines = refusal({ ...ORDINARY_ENVIRONMENT, [name]: secret })
    assert.deepEqual(lines, [
      `${name}: not a variable of objstore-exporter; did you mean ${closest}? A security setting is never ignored: rename or remove it`,
    ])
  }
})

test('other near-misses and names under the exporter prefixes are warnings naming the closest variable', () => {
  const { warnings } = load({
    ...ORDINARY_ENVIRONMENT,
    SCAN_INTERVAL: '60',
    DRIVE_TIMEOUT: '100',
    PROT: '9100',
    log_level: 'debug',
  })
  assert.deepEqual(
    warnings.map(({ variable, closest, origin }) => `${variable} ${closest} ${origin}`).sort(),
    [
      'DRIVE_TIMEOUT DRIVE_TIMEOUT_MS the environment',
      'PROT PORT the environment',
      'SCAN_INTERVAL SCAN_INTERVAL_SECONDS the environment',
      'log_level LOG_LEVEL the environment',
    ],
  )
})

test('a near-miss of a variable choosing the store stops start-up: it would read another store', () => {
  for (const [name, closest] of [
    ['BUCKET_SOURCE', 'BUCKETS_SOURCE'],
    ['S3_ENDPOINT_URL', 'S3_ENDPOINT'],
    ['DATADIR', 'DATA_DIR'],
  ] as const) {
    assert.deepEqual(refusal({ ...ORDINARY_ENVIRONMENT, [name]: 's3' }), [
      `${name}: not a variable of objstore-exporter; did you mean ${closest}? It chooses which store is read, so it is never ignored: rename or remove it`,
    ])
  }
})

test('closest name: shared words first, then edits', () => {
  assert.equal(closestName('METRICS_TOKEN', KNOWN), 'METRICS_AUTH_TOKEN')
  assert.equal(closestName('BUCKET_SOURCE', KNOWN), 'BUCKETS_SOURCE')
  assert.equal(closestName('S3_ENDPOINT_URL', KNOWN), 'S3_ENDPOINT')
  assert.equal(distance('PROT', 'PORT'), 1)
  assert.equal(distance('HOME', 'HOST'), 2)
  assert.equal(distance('', 'ABC'), 3)
  assert.equal(distance('KITTEN', 'SITTING'), 3)
})

test('compareNames orders the exporter-style names as localeCompare does', () => {
  const names = ['']
  for (let length = 1; length <= 3; length++)
    for (const name of names.filter((existing) => existing.length === length - 1))
      for (const character of ['A', 'B', 'Z', '_', '0', '9']) names.push(name + character)
  for (const a of names)
    for (const b of names) assert.equal(compareNames(a, b), Math.sign(a.localeCompare(b)), `${a} ${b}`)
  assert.equal(compareNames('ä', 'b'), Math.sign('ä'.localeCompare('b')))
})
