import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { sampleValue } from '../support/exposition.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'
import { mountTmpfs } from '../support/tmpfs.js'

/**
 * Sizes a double cannot hold exactly (beyond 2^53 - 1 bytes, about 9 PB), as sparse files on a
 * tmpfs (ext4 stops at 16 TiB a file): a bucket that passes the limit fails with a reason naming
 * it, one at the limit is served exactly and kept by the state file across a restart.
 */

const LIMIT = Number.MAX_SAFE_INTEGER

test('sizes beyond 2^53 - 1: the bucket fails naming the limit; one at the limit served exactly, after a restart too', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'objstore-huge-'))
  const data = join(root, 'data')
  await mkdir(data)
  const mounted = await mountTmpfs(data)
  // Unmounted before the folder goes (an after hook of scratchFolder would run first).
  t.after(async () => {
    if (typeof mounted !== 'string') await mounted.release()
    await rm(root, { recursive: true, force: true })
  })
  if (typeof mounted === 'string') {
    if (process.env.CI) throw new Error(`CI must be able to mount a tmpfs: ${mounted}`)
    return t.skip(mounted)
  }
  // Sizes as truncate(1) takes them: Node's own truncate refuses lengths beyond 2^53 - 1.
  const files: Record<string, readonly string[]> = {
    // 13.5 PB: each file is exact, their sum is not.
    huge: ['4P', '4P', '4P'],
    // 4 EiB: the file itself is beyond the limit.
    giant: ['4E'],
    edge: [String(LIMIT - 1), '1'],
    small: ['1234'],
  }
  for (const [bucket, sizes] of Object.entries(files)) {
    await mkdir(join(data, bucket))
    for (const [index, size] of sizes.entries())
      await promisify(execFile)('truncate', ['-s', size, join(data, bucket, `file-${index}`)])
  }
  const env = {
    DATA_DIR: data,
    STATE_FILE: join(root, 'usage.json'),
    SCAN_INTERVAL_SECONDS: '3600',
    DRIVES: root,
  }
  const exporter = await startServingProcess(t, env, root)
  await exporter.waitForLogs('a scan', (line) => line.msg === 'usage scan finished')
  const scrape = await exporter.scrape()
  const success = (bucket: string) => sampleValue(scrape, 'objstore_bucket_scan_success', { bucket })
  const bytes = (bucket: string) => sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket })
  assert.deepEqual(
    ['huge', 'giant', 'edge', 'small'].map(success),
    [0, 0, 1, 1],
    'past the limit: failed; at it: measured',
  )
  assert.equal(bytes('edge'), LIMIT)
  assert.equal(bytes('small'), 1_234)
  const failures = Object.fromEntries(
    exporter
      .logs()
      .filter((line) => line.msg === 'bucket scan failed')
      .map((line) => [line.bucket, String(line.error)]),
  )
  assert.match(failures.huge ?? '', /the bucket's bytes pass 2\^53 - 1 \(9007199254740991 bytes/)
  assert.match(failures.giant ?? '', /object size 4611686018427387904 bytes is beyond 2\^53 - 1 /)
  assert.deepEqual(
    exporter.logs().filter((line) => line.msg === 'bucket records left out of the state file'),
    [],
    'every record the round kept is written',
  )
  await assertCleanExit(exporter)

  const restarted = await startServingProcess(t, env, root)
  await restarted.waitForLogs(
    'the loaded snapshot',
    (line) => line.msg === 'usage snapshot loaded from state file',
  )
  const again = await restarted.scrape()
  assert.equal(sampleValue(again, 'objstore_bucket_usage_total_bytes', { bucket: 'edge' }), LIMIT)
  assert.equal(sampleValue(again, 'objstore_bucket_usage_total_bytes', { bucket: 'small' }), 1_234)
  assert.deepEqual(
    restarted.logs().filter((line) => String(line.msg).startsWith('state file records refused')),
    [],
  )
  await assertCleanExit(restarted)
})
