import assert from 'node:assert/strict'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { freePort, startExporterProcess } from '../support/process.js'

let cwd: string
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'objstore-process-'))
})
after(() => rm(cwd, { recursive: true, force: true }))

test('bad configuration: one line per bad variable, no stack trace, non-zero exit', async (t) => {
  const process = startExporterProcess({ PORT: 'abc', LOG_MODE: 'loud', EC_PARITY: 'x' }, cwd)
  t.after(() => process.kill('SIGKILL'))
  const code = await process.exited
  assert.equal(code, 2)
  const lines = process.stderr().trim().split('\n')
  assert.deepEqual(lines.sort(), [
    'objstore-exporter: invalid configuration: EC_PARITY="x": expected an integer >= 0 and <= 1024',
    'objstore-exporter: invalid configuration: LOG_MODE="loud": expected one of auto, json, logfmt, pretty, quiet',
    'objstore-exporter: invalid configuration: PORT="abc": expected an integer >= 1 and <= 65535',
  ])
  assert.equal(process.stdout(), '')
})

test('EC_PARITY larger than the drive count is refused at start-up', async (t) => {
  const process = startExporterProcess({ DRIVES: '/a,/b', EC_PARITY: '3' }, cwd)
  t.after(() => process.kill('SIGKILL'))
  assert.equal(await process.exited, 2)
  assert.match(
    process.stderr(),
    /^objstore-exporter: invalid configuration: EC_PARITY=3: expected at most half/,
  )
  assert.doesNotMatch(process.stderr(), /\n\s+at /, 'no stack trace')
})

test('the default configuration serves ./data, and SIGTERM ends the process cleanly', async (t) => {
  const port = await freePort()
  const process = startExporterProcess({ HOST: '127.0.0.1', PORT: String(port) }, cwd)
  t.after(() => process.kill('SIGKILL'))
  await process.waitForOutput('objstore-exporter listening')
  assert.ok((await stat(join(cwd, 'data'))).isDirectory(), 'DATA_DIR is created when missing')
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  const scrape = parseExposition(await response.text())
  assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive: './data' }), 1)
  process.kill('SIGTERM')
  assert.equal(await process.exited, 0)
  assert.match(process.stdout(), /"msg":"shutting down"/)
})

test('SIGHUP is logged and ignored: the process keeps serving, then SIGTERM ends it cleanly', async (t) => {
  const port = await freePort()
  const process = startExporterProcess({ HOST: '127.0.0.1', PORT: String(port), LOG_MODE: 'json' }, cwd)
  t.after(() => process.kill('SIGKILL'))
  await process.waitForOutput('objstore-exporter listening')
  process.kill('SIGHUP')
  await process.waitForOutput('"signal":"SIGHUP"')
  assert.match(
    process.stdout(),
    /"msg":"SIGHUP ignored: the configuration is read once, at start; restart to apply a change"/,
  )
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'still serving')
  process.kill('SIGHUP')
  assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 200, 'a second SIGHUP too')
  process.kill('SIGTERM')
  assert.equal(await process.exited, 0)
})
