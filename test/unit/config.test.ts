import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'

function refused(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env, { dotenvPath: false })
  } catch (error) {
    if (error instanceof ConfigError) return error.lines
    throw error
  }
  assert.fail(`configuration ${JSON.stringify(env)} was accepted`)
}

test('defaults: documented port, /metrics, objstore namespace, ./data as the one drive', () => {
  const config = loadConfig({}, { dotenvPath: false })
  assert.equal(config.HOST, '0.0.0.0')
  assert.equal(config.PORT, 9786)
  assert.equal(config.METRICS_PATH, '/metrics')
  assert.equal(config.METRICS_NAMESPACE, 'objstore')
  assert.equal(config.DATA_DIR, './data')
  assert.deepEqual(config.DRIVES, ['./data'])
  assert.equal(config.EC_PARITY, 0)
  assert.equal(config.LOG_MODE, 'json')
})

test('values are coerced from strings and an empty variable means unset', () => {
  const config = loadConfig({ PORT: '9100', EC_PARITY: '', DRIVE_TIMEOUT_MS: '250' }, { dotenvPath: false })
  assert.equal(config.PORT, 9100)
  assert.equal(config.EC_PARITY, 0)
  assert.equal(config.DRIVE_TIMEOUT_MS, 250)
})

const badCases: Array<[string, Record<string, string>, RegExp]> = [
  ['PORT=abc', { PORT: 'abc' }, /^PORT="abc": expected an integer >= 1 and <= 65535$/],
  ['PORT out of range', { PORT: '70000' }, /^PORT="70000": expected an integer/],
  ['PORT fractional', { PORT: '80.5' }, /^PORT="80.5": expected an integer/],
  ['unknown LOG_MODE', { LOG_MODE: 'loud' }, /^LOG_MODE="loud": expected one of json, pretty, quiet$/],
  ['unknown LOG_LEVEL', { LOG_LEVEL: 'verbose' }, /^LOG_LEVEL="verbose": expected one of fatal, error/],
  ['negative EC_PARITY', { EC_PARITY: '-1' }, /^EC_PARITY="-1": expected an integer >= 0/],
  [
    'EC_PARITY larger than the drive count',
    { DRIVES: '/mnt/a,/mnt/b', EC_PARITY: '3' },
    /^EC_PARITY=3: expected at most half the drive count \(2 drive\(s\), so at most 1\)$/,
  ],
  [
    'namespace with a dash',
    { METRICS_NAMESPACE: 'obj-store' },
    /^METRICS_NAMESPACE="obj-store": expected a string/,
  ],
  ['metrics path without a slash', { METRICS_PATH: 'metrics' }, /^METRICS_PATH="metrics": expected a string/],
  [
    'zero scrape timeout',
    { SCRAPE_TIMEOUT_SECONDS: '0' },
    /^SCRAPE_TIMEOUT_SECONDS="0": expected a number > 0/,
  ],
  ['backwards ellipsis', { DRIVES: '/mnt/disk{4...1}' }, /^DRIVES: range \{4...1\} runs backwards$/],
  ['unclosed ellipsis', { DRIVES: '/mnt/disk{1...4' }, /^DRIVES: malformed ellipsis/],
]

for (const [name, env, expected] of badCases) {
  test(`refused: ${name}`, () => {
    const lines = refused(env)
    assert.equal(lines.length, 1, `one line per bad variable, got ${JSON.stringify(lines)}`)
    assert.match(lines[0] ?? '', expected)
  })
}

test('every bad variable gets its own line', () => {
  const lines = refused({ PORT: 'abc', LOG_MODE: 'loud', DRIVE_TIMEOUT_MS: '0' })
  assert.equal(lines.length, 3)
  assert.deepEqual(lines.map((line) => line.split('=')[0]).sort(), ['DRIVE_TIMEOUT_MS', 'LOG_MODE', 'PORT'])
})

test('a .env file is read when present, and the environment wins over it', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'objstore-env-'))
  try {
    const path = join(folder, '.env')
    await writeFile(path, 'PORT=9200\nMETRICS_NAMESPACE=minio\n')
    const config = loadConfig({ PORT: '9300' }, { dotenvPath: path })
    assert.equal(config.PORT, 9300)
    assert.equal(config.METRICS_NAMESPACE, 'minio')
    // A missing .env file is not an error.
    assert.equal(loadConfig({}, { dotenvPath: join(folder, 'absent.env') }).PORT, 9786)
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
})
