import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, type ServingProcess, startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Glob patterns an attacker (the `match` query, open by default) or a careless operator
 * (BUCKETS_INCLUDE / BUCKETS_EXCLUDE) writes to make a backtracking matcher run for ever: 1,000
 * stars and a character no name has. Compiled to a regular expression with `.*` per star, one
 * such request froze the whole process (22 stars against `bucket-00001` took 18 s in V8). The
 * bounds below are on waiting, far above need; a frozen process never answers at all (a test's
 * timeout bounds what the helpers wait for without one).
 */

const HOSTILE = `${'*'.repeat(1000)}!`
const BUCKETS = ['bucket-00001', 'bucket-00002', 'logs-a']

async function dataFolder(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const folder = await scratchFolder(t, 'objstore-globs-')
  const data = join(folder, 'data')
  for (const bucket of BUCKETS) {
    await mkdir(join(data, bucket), { recursive: true })
    await writeFile(join(data, bucket, 'object'), Buffer.alloc(10))
  }
  return folder
}

/** GET `path`, given at most `timeoutMs` to answer (an aborted fetch throws, failing the test). */
async function get(serving: ServingProcess, path: string, timeoutMs = 30_000): Promise<Response> {
  return fetch(`${serving.baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) })
}

async function firstScan(serving: ServingProcess): Promise<void> {
  await waitFor('the first scan', async () => (await get(serving, '/api/v1/buckets')).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
  })
}

test('?match= with 1,000 stars answers, and the process keeps answering', { timeout: 120_000 }, async (t) => {
  const folder = await dataFolder(t)
  const serving = await startServingProcess(
    t,
    { DATA_DIR: join(folder, 'data'), DRIVES: join(folder, 'data'), LOG_MODE: 'json' },
    folder,
  )
  await firstScan(serving)
  const hostile = get(serving, `/api/v1/buckets?match=${encodeURIComponent(HOSTILE)}`)
  const health = await get(serving, '/healthz')
  assert.equal(health.status, 200, 'liveness answers while or after the hostile request')
  const answer = await hostile
  assert.equal(answer.status, 200)
  assert.equal(((await answer.json()) as { matched: number }).matched, 0)
  const starred = await get(serving, `/api/v1/buckets?match=${encodeURIComponent('*'.repeat(1000))}`)
  assert.equal(((await starred.json()) as { matched: number }).matched, BUCKETS.length)
  const tooLong = await get(serving, `/api/v1/buckets?match=${'a'.repeat(1025)}`)
  assert.equal(tooLong.status, 400)
  assert.match(
    ((await tooLong.json()) as { message: string }).message,
    /querystring\/match must NOT have more than 1024 characters/,
  )
  assert.equal((await get(serving, '/metrics')).status, 200)
  await assertCleanExit(serving)
})

test('BUCKETS_EXCLUDE with 1,000 stars: the scan completes and measures every bucket', {
  timeout: 120_000,
}, async (t) => {
  const folder = await dataFolder(t)
  const serving = await startServingProcess(
    t,
    {
      DATA_DIR: join(folder, 'data'),
      DRIVES: join(folder, 'data'),
      LOG_MODE: 'json',
      BUCKETS_EXCLUDE: HOSTILE,
      BUCKETS_INCLUDE: `bucket-*,${'*?'.repeat(500)}`,
    },
    folder,
  )
  await firstScan(serving)
  const answer = (await (await get(serving, '/api/v1/buckets')).json()) as { buckets: { name: string }[] }
  assert.deepEqual(
    answer.buckets.map((bucket) => bucket.name),
    ['bucket-00001', 'bucket-00002'],
  )
  assert.equal((await get(serving, '/healthz')).status, 200)
  await assertCleanExit(serving)
})
