import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { waitForHttpOk } from '../support/http-ready.js'
import { freePort, startExporterProcess } from '../support/process.js'
import { scratchFolder } from '../support/scratch.js'

const MODULE_LOG_PRELOAD = fileURLToPath(new URL('../support/module-log/preload.cjs', import.meta.url))

/** Packages an fs exporter in json log mode has no use for, and what needs them. */
const NOT_LOADED = {
  '@aws-sdk/': 'BUCKETS_SOURCE=s3 or rgw',
  'pino-pretty': 'LOG_MODE=pretty',
  'env-schema': 'nothing: validate-env.ts checks the variables',
}

test('an fs exporter starts without the SDK, pino-pretty or env-schema, its young generation small', async (t) => {
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
  const scrape = parseExposition(await response.text())

  const loaded = (await readFile(log, 'utf8')).split('\n')
  assert.ok(
    loaded.some((path) => path.includes('/node_modules/fastify/')),
    'the log records packages',
  )
  for (const [name, neededBy] of Object.entries(NOT_LOADED)) {
    const found = loaded.find((path) => path.includes(`/node_modules/${name}`))
    assert.equal(found, undefined, `${name} loaded, though only ${neededBy} needs it`)
  }
  // Start-up's surviving objects used to grow it to V8's maximum, 16 MB per semi-space (32 MB).
  // Here tsx loads before main.ts and grows it to 8 MB; the built exporter stays at 2 MB.
  const young = sampleValue(scrape, 'nodejs_heap_space_size_total_bytes', { space: 'new' })
  assert.ok(young <= 16 << 20, `young generation ${young} bytes`)
})
