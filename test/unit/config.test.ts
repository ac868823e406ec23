import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadConfig } from '../../src/config/load.js'
import { refusalLines } from '../support/config-refusal.js'

function refused(env: Record<string, string>, dotenvPath: string | false = false): readonly string[] {
  return refusalLines(() => loadConfig(env, { dotenvPath }))
}

test('defaults: documented port, /metrics, objstore namespace, ./data as the one drive', () => {
  const config = loadConfig({}, { dotenvPath: false })
  assert.equal(config.HOST, '0.0.0.0')
  assert.equal(config.PORT, 9786)
  assert.equal(config.METRICS_PATH, '/metrics')
  assert.equal(config.METRICS_NAMESPACE, 'objstore')
  assert.equal(config.METRICS_SERVER_LABEL, '')
  assert.equal(config.DATA_DIR, './data')
  assert.deepEqual(config.DRIVES, ['./data'])
  assert.equal(config.EC_PARITY, 0)
  assert.equal(config.LOG_MODE, 'auto')
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
  [
    'unknown LOG_MODE',
    { LOG_MODE: 'loud' },
    /^LOG_MODE="loud": expected one of auto, json, logfmt, pretty, quiet$/,
  ],
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
  [
    'a server label with a space',
    { METRICS_SERVER_LABEL: 'node 1' },
    /^METRICS_SERVER_LABEL="node 1": expected a server name such as `minio-1:9000`/,
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

/** Loads with a .env file holding `text`, in a folder removed afterwards. */
async function withDotenv<T>(text: string, use: (path: string) => T): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'objstore-env-'))
  try {
    const path = join(folder, '.env')
    await writeFile(path, text)
    return use(path)
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

test('.env values get the checks environment values get, and lines name the file and line', async () => {
  const lines = await withDotenv(
    'LOG_MODE=json\nSCAN_INTERVAL_SECONDS=1e400\nPORT=0x2642\nDRIVE_TIMEOUT_MS=Infinity\n',
    (path) => refused({}, path).map((line) => line.replace(path, '.env')),
  )
  assert.deepEqual(lines.sort(), [
    'DRIVE_TIMEOUT_MS="Infinity": expected an integer >= 1 and <= 600000 (.env line 4)',
    'PORT="0x2642": expected an integer >= 1 and <= 65535 (.env line 3)',
    'SCAN_INTERVAL_SECONDS="1e400": expected a number >= 1 and <= 604800 (.env line 2)',
  ])
})

test('a blank .env value means unset: the default applies, not 0', async () => {
  const config = await withDotenv('MAX_EVENT_LOOP_DELAY_MS=\nEC_PARITY=  \nSCAN_CONCURRENCY=""\n', (path) =>
    loadConfig({}, { dotenvPath: path }),
  )
  assert.equal(config.MAX_EVENT_LOOP_DELAY_MS, 1000)
  assert.equal(config.EC_PARITY, 0)
  assert.equal(config.SCAN_CONCURRENCY, 4)
})

test('a byte order mark does not hide the first line; surrounding spaces never reach a path', async () => {
  const config = await withDotenv(
    '\uFEFFPORT=9200\r\nDATA_DIR="/srv/data  "\r\nSTATE_FILE=/srv/state.json   \r\n',
    (path) => loadConfig({ DRIVES: ' /mnt/a,/mnt/b\t' }, { dotenvPath: path }),
  )
  assert.equal(config.PORT, 9200)
  assert.equal(config.DATA_DIR, '/srv/data')
  assert.equal(config.STATE_FILE, '/srv/state.json')
  assert.deepEqual(config.DRIVES, ['/mnt/a', '/mnt/b'])
})

test('numbers are plain decimal from the environment too: no hex, exponent or Infinity', () => {
  for (const [name, value] of [
    ['PORT', '0x2642'],
    ['EC_PARITY', '0x1'],
    ['DRIVE_TIMEOUT_MS', '1e3'],
    ['SCRAPE_TIMEOUT_SECONDS', '1e1'],
    ['SCAN_INTERVAL_SECONDS', 'Infinity'],
  ] as const) {
    assert.deepEqual(
      refused({ [name]: value }).map((line) => line.split(':')[0]),
      [`${name}="${value}"`],
    )
  }
  const config = loadConfig(
    { SCRAPE_TIMEOUT_SECONDS: '2.5', PORT: '09100', SCAN_INTERVAL_SECONDS: '1.5' },
    { dotenvPath: false },
  )
  assert.equal(config.SCRAPE_TIMEOUT_SECONDS, 2.5)
  assert.equal(config.PORT, 9100)
  assert.equal(config.SCAN_INTERVAL_SECONDS, 1.5)
})

test('a malformed or unreadable .env file refuses start-up naming the file and line', async () => {
  const lines = await withDotenv('PORT=9100\nnot an assignment\n', (path) =>
    refused({}, path).map((line) => line.replace(path, '.env')),
  )
  assert.deepEqual(lines, ['.env line 2: expected NAME=value (a name of letters, digits and _)'])
  const folder = await mkdtemp(join(tmpdir(), 'objstore-env-'))
  try {
    // A folder where the file should be, or a device that never ends: refused, not read.
    assert.deepEqual(refused({}, folder), [`${folder}: not a regular file; expected NAME=value lines`])
    assert.deepEqual(refused({}, '/dev/zero'), ['/dev/zero: not a regular file; expected NAME=value lines'])
    const large = join(folder, 'large.env')
    await writeFile(large, `# ${'x'.repeat(1024 * 1024)}\n`)
    assert.deepEqual(refused({}, large), [`${large}: larger than 1048576 bytes; expected NAME=value lines`])
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
})
