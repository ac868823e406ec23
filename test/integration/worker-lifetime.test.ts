import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'

/** More than usage-render.ts renders on the spot (200), so every snapshot renders on its worker. */
const BUCKETS = 300
const WORKERS = ['walk-worker', 'usage-render-worker'] as const

const started = (scrape: ParsedExposition, worker: string) =>
  sampleValue(scrape, 'objstore_worker_threads_started_total', { worker })

/**
 * Issue 23: threads started and ended every scan round (a walk pool per scan, a render worker per
 * snapshot ended by terminate()) aborted the process, rarely (NodePlatform::ForIsolate). Workers
 * now live as long as the process: after the first round, more rounds start no thread.
 */
test('scan rounds reuse the worker threads: none is started after the first round', async (t) => {
  const folder = await scratchFolder(t, 'objstore-worker-lifetime-')
  const data = join(folder, 'data')
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    const dir = join(data, `bucket-${String(bucket).padStart(4, '0')}`, 'folder')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'object'), Buffer.alloc(bucket))
  }
  const exporter = await startServingProcess(
    t,
    {
      DATA_DIR: data,
      STATE_FILE: join(folder, 'state.jsonl'),
      SCAN_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'debug',
    },
    folder,
  )
  const finished = (line: Record<string, unknown>) => line.msg === 'usage scan finished'
  // A scrape renders the latest snapshot (or waits for its rendering), so it counts its thread.
  await exporter.waitForLogs('the first scan', finished, 1, 60_000)
  const first = await exporter.scrape()
  const rounds = exporter.logs().filter(finished).length
  await exporter.waitForLogs('five more scans', finished, rounds + 5, 120_000)
  const later = await exporter.scrape()
  for (const worker of WORKERS) {
    assert.ok(started(first, worker) >= 1, `${worker}: started for the first round`)
    assert.equal(
      started(later, worker),
      started(first, worker),
      `${worker}: threads started after five rounds`,
    )
    assert.ok(
      sampleValue(later, 'objstore_worker_threads', { worker }) <= started(later, worker),
      `${worker}: running`,
    )
  }
  // The threads end by themselves at shutdown: exit code 0, nothing on stderr.
  await assertCleanExit(exporter)
})
