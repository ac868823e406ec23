import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { median } from '../../bench/support/report.js'
import { loadConfig } from '../../src/config/load.js'
import { createLogger } from '../../src/logging/create-logger.js'
import { CapturedOutput } from '../support/capture.js'
import { findSamples, parseExposition, sampleValue } from '../support/exposition.js'
import { httpStats, LogReceiver } from '../support/log-receiver.js'
import { scrapeSideBySide, startLoggingExporter } from '../support/logging-exporter.js'
import { waitFor } from '../support/wait-for.js'

const cleanups: (() => Promise<unknown>)[] = []
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('a log receiver that never answers', () => {
  it('does not stall scrapes, and the queue stays within its bound with every entry accounted for', async (t) => {
    const receiver = await LogReceiver.start({ answer: () => 'hang' })
    cleanups.push(() => receiver.close())
    const baseline = await startLoggingExporter(undefined)
    cleanups.push(() => baseline.close())
    const stuck = await startLoggingExporter(receiver)
    cleanups.push(() => stuck.close())
    const rounds = 60
    const run = await scrapeSideBySide(baseline, stuck, receiver, { rounds, warmUpRounds: 5 })
    const statsAtEnd = stuck.stats()
    const writtenAtEnd = stuck.written()

    assert.ok(
      run.statuses.every((status) => status === 200),
      'every scrape answered',
    )
    assert.ok(receiver.requests.length > 1, 'deliveries were attempted and retried')
    assert.ok(
      receiver.requests.every((request) => request.status === undefined),
      'none was ever answered',
    )
    assert.ok(run.completedWhileStuck > 0, 'scrapes completed while a delivery hung')

    const ns = 'objstore_logger'
    const http = { target: 'http' }
    const exposition = parseExposition(run.lastStuckBody)
    assert.equal(sampleValue(exposition, `${ns}_online`, http), 0)
    assert.equal(sampleValue(exposition, `${ns}_sent_total`, http), 0)
    assert.equal(sampleValue(exposition, `${ns}_failed_total`, http), 0)
    const queued = sampleValue(exposition, `${ns}_queue_entries`, http)
    assert.ok(queued > 0 && queued <= 1000, `queue within its bound (${queued})`)
    assert.ok(sampleValue(exposition, `${ns}_dropped_total`, http) > 0)
    assert.equal(exposition.types.get(`${ns}_dropped_total`), 'counter')
    // Every entry written to the HTTP target is either still queued or counted as dropped.
    assert.equal(writtenAtEnd.filter((entry) => entry.msg === 'burst entry').length, rounds * 500)
    assert.equal((statsAtEnd?.dropped ?? 0) + (statsAtEnd?.queued ?? 0), writtenAtEnd.length)
    assert.ok((statsAtEnd?.queued ?? Number.POSITIVE_INFINITY) <= 1000)
    const baselineExposition = parseExposition((await baseline.scrape()).body)
    assert.deepEqual(findSamples(baselineExposition, `${ns}_online`), [], 'no logger families without http')

    // Reported, not asserted (shared machine); bench/log-http-scrape.bench.ts holds the target.
    const ratio = median(run.stuckMs) / median(run.baselineMs)
    t.diagnostic(
      `scrape latency median: ${median(run.baselineMs).toFixed(2)} ms console only, ` +
        `${median(run.stuckMs).toFixed(2)} ms with a receiver that never answers (ratio ${ratio.toFixed(2)})`,
    )
  })

  it('holds memory to the queue bound while far more is logged than it holds', async (t) => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const receiver = await LogReceiver.start({ answer: () => 'hang' })
    cleanups.push(() => receiver.close())
    const reports = new CapturedOutput()
    const logging = createLogger(
      loadConfig(
        {
          DATA_DIR: '/tmp',
          LOG_TARGETS: 'http',
          LOG_HTTP_ENDPOINT: receiver.url,
          LOG_HTTP_QUEUE_SIZE: '1000',
          LOG_HTTP_BATCH_SIZE: '100',
          LOG_HTTP_FLUSH_INTERVAL_MS: '10',
          LOG_HTTP_TIMEOUT_MS: '200',
        },
        { dotenvPath: false },
      ),
      { fallbackReportOutput: reports, retryBackoff: { baseMs: 10, maxMs: 50 } },
    )
    cleanups.push(() => logging.close(100))
    const entryText = 'y'.repeat(2048)
    const total = 100_000
    gc()
    const before = process.memoryUsage().heapUsed
    for (let index = 0; index < total; index++) {
      logging.logger.info({ index, entryText }, 'large entry')
      // Let the delivery loop run between chunks, as it would between real log calls.
      if (index % 5000 === 4999) await nextTurn()
    }
    await waitFor('a delivery attempt to hang', () => receiver.heldCount > 0)
    gc()
    const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20
    const stats = httpStats(logging)
    assert.ok(stats && stats.queued <= 1000, `queued ${stats?.queued}`)
    assert.equal((stats?.dropped ?? 0) + (stats?.queued ?? 0), total)
    // About 200 MB went through the logger; a bounded queue keeps about 1000 x 2 KB of it.
    assert.ok(grownMb < 64, `heap grew by ${grownMb.toFixed(1)} MB`)
    t.diagnostic(`logged ${total} entries of 2 KB (~200 MB); heap after GC grew ${grownMb.toFixed(1)} MB`)
  })
})
