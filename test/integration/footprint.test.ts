import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { waitForHttpOk } from '../support/http-ready.js'
import { freePort, startExporterProcess } from '../support/process.js'
import { scratchFolder } from '../support/scratch.js'

const MODULE_LOG_PRELOAD = fileURLToPath(new URL('../support/module-log/preload.cjs', import.meta.url))

/** Packages an fs exporter in json log mode has no use for, and what needs them. */
const NOT_LOADED = {
  '@aws-sdk/': 'BUCKETS_SOURCE=s3 or rgw',
  'pino-pretty': 'LOG_MODE=pretty',
}

test('an fs exporter starts without the AWS SDK or pino-pretty', async (t) => {
  const folder = await scratchFolder(t, 'objstore-footprint-')
  const log = join(folder, 'modules.txt')
  const port = await freePort()
  const exporter = startExporterProcess(
    {
      DATA_DIR: join(folder, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      OBJSTORE_MODULE_LOG: log,
    },
    folder,
    { nodeArgs: ['--require', MODULE_LOG_PRELOAD] },
  )
  t.after(async () => {
    exporter.kill()
    await exporter.exited
  })
  const base = `http://127.0.0.1:${port}`
  await waitForHttpOk(`${base}/readyz`, () => exporter.child.exitCode === null, 60_000)
  const response = await fetch(`${base}/metrics`)
  assert.equal(response.status, 200)
  await response.arrayBuffer()

  const loaded = (await readFile(log, 'utf8')).split('\n')
  assert.ok(
    loaded.some((path) => path.includes('/node_modules/fastify/')),
    'the log records packages',
  )
  for (const [name, neededBy] of Object.entries(NOT_LOADED)) {
    const found = loaded.find((path) => path.includes(`/node_modules/${name}`))
    assert.equal(found, undefined, `${name} loaded, though only ${neededBy} needs it`)
  }
})
