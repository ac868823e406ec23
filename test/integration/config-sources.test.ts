import assert from 'node:assert/strict'
import { stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { ORDINARY_ENVIRONMENT } from '../support/ordinary-environment.js'
import { type ExporterProcess, freePort, startExporterProcess } from '../support/process.js'
import { scratchFolder } from '../support/scratch.js'
import { unexpectedStderr } from '../support/serving-process.js'

const PREFIX = 'objstore-exporter: invalid configuration: '
const MARKER = 'marker-0c1d2e3f'

/**
 * The ordinary environment of a container, without what changes how Node itself starts (an
 * absent NODE_EXTRA_CA_CERTS file is a warning on stderr), PATH kept so the child finds its tools.
 */
function ordinaryEnvironment(): Record<string, string> {
  const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...rest } = ORDINARY_ENVIRONMENT
  return { ...rest, PATH: process.env.PATH ?? '/usr/bin:/bin' }
}

/** The exit code, or 'still running' when the process has not ended within a generous bound. */
async function exitCode(child: ExporterProcess): Promise<number | string> {
  return Promise.race([child.exited, sleep(30_000, 'still running', { ref: false })])
}

/** The process must end by itself with code 2 and exactly `expected` as its stderr lines. */
async function assertRefused(child: ExporterProcess, expected: readonly string[]): Promise<void> {
  assert.equal(await exitCode(child), 2, `${child.stdout()}${child.stderr()}`)
  const lines = unexpectedStderr(child.stderr()).split('\n')
  assert.deepEqual(lines.sort(), expected.map((line) => `${PREFIX}${line}`).sort())
  assert.equal(child.stdout(), '')
  assert.ok(!child.stderr().includes(MARKER), 'no value of a mistyped secret is echoed')
}

/**
 * Starts the real process in a fresh folder with the ordinary environment plus `env`, and a .env
 * file there holding `dotenv(folder)` when given; killed when the test ends.
 */
async function startIn(
  t: TestContext,
  env: Record<string, string>,
  dotenv?: (cwd: string) => string,
): Promise<{ child: ExporterProcess; cwd: string }> {
  const cwd = await scratchFolder(t, 'objstore-config-sources-')
  if (dotenv) await writeFile(join(cwd, '.env'), dotenv(cwd))
  const child = startExporterProcess({ ...ordinaryEnvironment(), ...env }, cwd)
  t.after(() => child.kill('SIGKILL'))
  return { child, cwd }
}

test('.env values are checked like the environment: hex port, Infinity interval, a BOM', async (t) => {
  const { child } = await startIn(
    t,
    { HOST: '127.0.0.1' },
    () => '\uFEFFPORT=0x2642\nLOG_MODE=json\nSCAN_INTERVAL_SECONDS=1e400\nMAX_EVENT_LOOP_DELAY_MS=\n',
  )
  await assertRefused(child, [
    'PORT="0x2642": expected an integer >= 1 and <= 65535 (.env line 1)',
    'SCAN_INTERVAL_SECONDS="1e400": expected a number >= 1 and <= 604800 (.env line 3)',
  ])
})

test('numbers in the environment are plain decimal too', async (t) => {
  const { child } = await startIn(t, { HOST: '127.0.0.1', PORT: '0x2642', DRIVE_TIMEOUT_MS: '1e3' })
  await assertRefused(child, [
    'DRIVE_TIMEOUT_MS="1e3": expected an integer >= 1 and <= 600000',
    'PORT="0x2642": expected an integer >= 1 and <= 65535',
  ])
})

test('a mistyped token or TLS variable stops start-up, from the environment or from .env', async (t) => {
  const port = await freePort()
  const { child } = await startIn(
    t,
    { HOST: '127.0.0.1', PORT: String(port), METRICS_TOKEN: MARKER },
    (cwd) => `# TLS\nTLS_CERT=${join(cwd, 'tls.crt')}\n`,
  )
  await assertRefused(child, [
    'METRICS_TOKEN: not a variable of objstore-exporter; did you mean METRICS_AUTH_TOKEN? A security setting is never ignored: rename or remove it',
    'TLS_CERT: not a variable of objstore-exporter; did you mean TLS_CERT_FILE? A security setting is never ignored: rename or remove it (.env line 2)',
  ])
})

test('serving from .env: BOM, trimmed path, and one warning for a near-miss in an ordinary environment', async (t) => {
  const port = await freePort()
  const { child, cwd } = await startIn(
    t,
    { SCAN_INTERVAL: '60' },
    (folder) =>
      `\uFEFFPORT=${port}\r\nHOST=127.0.0.1\r\nDATA_DIR="${join(folder, 'store')}  "\r\nMAX_EVENT_LOOP_DELAY_MS=\r\n`,
  )
  const store = join(cwd, 'store')
  await child.waitForOutput('objstore-exporter listening')

  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  assert.equal(response.status, 200, 'served on the port of the .env file, first line after the BOM')
  const scrape = parseExposition(await response.text())
  assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive: store }), 1)
  assert.ok((await stat(store)).isDirectory(), 'DATA_DIR created without the trailing spaces')
  await assert.rejects(stat(`${store}  `), { code: 'ENOENT' })

  const warnings = child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 40)
  assert.deepEqual(
    warnings.map(({ variable, closest, origin, msg }) => ({ variable, closest, origin, msg })),
    [
      {
        variable: 'SCAN_INTERVAL',
        closest: 'SCAN_INTERVAL_SECONDS',
        origin: 'the environment',
        msg: 'unknown variable SCAN_INTERVAL ignored; did you mean SCAN_INTERVAL_SECONDS?',
      },
    ],
  )
  child.kill('SIGTERM')
  assert.equal(await exitCode(child), 0)
  assert.equal(unexpectedStderr(child.stderr()), '')
})
