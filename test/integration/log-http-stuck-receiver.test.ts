import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { loadConfig } from '../../src/config/load.js'
import { createExporter } from '../../src/exporter.js'
import { createLogger } from '../../src/logging/create-logger.js'
import type { DeliveryStats } from '../../src/logging/targets/types.js'
import { CapturedOutput } from '../support/capture.js'
import { findSamples, parseExposition, sampleValue } from '../support/exposition.js'
import { LogReceiver } from '../support/log-receiver.js'
import { waitFor } from '../support/wait-for.js'

const cleanups: (() => Promise<unknown>)[] = []
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const FILLER = 'x'.repeat(200)
const WARM_UP_ROUNDS = 5

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

interface LoggingExporter {
  /** Logs a burst of 500 entries synchronously, as a busy exporter might. */
  burst(round: number): void
  /** One scrape of /metrics; its body and how long it took. */
  scrape(): Promise<{ body: string; ms: number }>
  stats(): DeliveryStats | undefined
  /** The entries the json console printed, without the HTTP target's reports about itself. */
  written(): Record<string, unknown>[]
}

/**
 * A real exporter on 127.0.0.1 whose logger has the HTTP target shipping to `receiver`, or only
 * the console when there is none (the baseline).
 */
async function startLoggingExporter(receiver: LogReceiver | undefined): Promise<LoggingExporter> {
  const dataDir = await mkdtemp(join(tmpdir(), 'log-http-scrape-'))
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_TARGETS: receiver ? 'console+http' : 'console',
      LOG_HTTP_ENDPOINT: receiver?.url ?? '',
      LOG_HTTP_QUEUE_SIZE: '1000',
      LOG_HTTP_BATCH_SIZE: '100',
      LOG_HTTP_FLUSH_INTERVAL_MS: '20',
      LOG_HTTP_TIMEOUT_MS: '200',
    },
    { dotenvPath: false },
  )
  const console = new CapturedOutput()
  const logging = createLogger(config, { consoleOutput: console, httpBackoff: { baseMs: 20, maxMs: 100 } })
  const exporter = await createExporter(config, {
    logger: logging.logger,
    ...(logging.httpDelivery ? { logDelivery: logging.httpDelivery } : {}),
  })
  const address = await exporter.app.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(async () => {
    await exporter.close()
    await logging.close(100)
  })
  return {
    burst(round) {
      for (let index = 0; index < 500; index++)
        logging.logger.info({ round, index, filler: FILLER }, 'burst entry')
    },
    async scrape() {
      const started = performance.now()
      const response = await fetch(`${address}/metrics`)
      const body = await response.text()
      const ms = performance.now() - started
      assert.equal(response.status, 200)
      return { body, ms }
    },
    stats: () => logging.httpDelivery?.stats(),
    written: () => console.jsonLines().filter((entry) => entry.logTarget === undefined),
  }
}

describe('a log receiver that never answers', () => {
  it('does not stall scrapes, and the queue stays within its bound with every entry accounted for', async (t) => {
    const receiver = await LogReceiver.start({ answer: () => 'hang' })
    cleanups.push(() => receiver.close())
    const baseline = await startLoggingExporter(undefined)
    const stuck = await startLoggingExporter(receiver)
    // Both run side by side and are scraped alternately, so machine noise falls on both alike.
    const rounds = 60
    const durations = { baseline: [] as number[], stuck: [] as number[] }
    let completedWhileStuck = 0
    let last = { body: '', ms: 0 }
    for (let round = 0; round < rounds; round++) {
      baseline.burst(round)
      stuck.burst(round)
      const order = round % 2 === 0 ? (['baseline', 'stuck'] as const) : (['stuck', 'baseline'] as const)
      for (const which of order) {
        const stuckBefore = receiver.heldCount > 0
        const result = await (which === 'stuck' ? stuck : baseline).scrape()
        if (which === 'stuck') {
          last = result
          if (stuckBefore && receiver.heldCount > 0) completedWhileStuck++
        }
        // The first rounds warm up the JIT and the connections; they are not measured.
        if (round >= WARM_UP_ROUNDS) durations[which].push(result.ms)
      }
    }
    const statsAtEnd = stuck.stats()
    const writtenAtEnd = stuck.written()

    assert.ok(receiver.requests.length > 1, 'deliveries were attempted and retried')
    assert.ok(
      receiver.requests.every((request) => request.status === undefined),
      'none was ever answered',
    )
    assert.ok(completedWhileStuck > 0, 'scrapes completed while a delivery hung')

    const ns = 'objstore_logger_http'
    const exposition = parseExposition(last.body)
    assert.equal(sampleValue(exposition, `${ns}_online`), 0)
    assert.equal(sampleValue(exposition, `${ns}_sent_total`), 0)
    assert.equal(sampleValue(exposition, `${ns}_failed_total`), 0)
    const queued = sampleValue(exposition, `${ns}_queue_entries`)
    assert.ok(queued > 0 && queued <= 1000, `queue within its bound (${queued})`)
    assert.ok(sampleValue(exposition, `${ns}_dropped_total`) > 0)
    assert.equal(exposition.types.get(`${ns}_dropped_total`), 'counter')
    // Every entry written to the HTTP target is either still queued or counted as dropped.
    assert.equal(writtenAtEnd.filter((entry) => entry.msg === 'burst entry').length, rounds * 500)
    assert.equal((statsAtEnd?.dropped ?? 0) + (statsAtEnd?.queued ?? 0), writtenAtEnd.length)
    assert.ok((statsAtEnd?.queued ?? Number.POSITIVE_INFINITY) <= 1000)
    const baselineExposition = parseExposition((await baseline.scrape()).body)
    assert.deepEqual(findSamples(baselineExposition, `${ns}_online`), [], 'no logger families without http')

    const ratio = median(durations.stuck) / median(durations.baseline)
    t.diagnostic(
      `scrape latency median: ${median(durations.baseline).toFixed(2)} ms console only, ` +
        `${median(durations.stuck).toFixed(2)} ms with a receiver that never answers (ratio ${ratio.toFixed(2)})`,
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
      { fallbackReportOutput: reports, httpBackoff: { baseMs: 10, maxMs: 50 } },
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
    const stats = logging.httpDelivery?.stats()
    assert.ok(stats && stats.queued <= 1000, `queued ${stats?.queued}`)
    assert.equal((stats?.dropped ?? 0) + (stats?.queued ?? 0), total)
    // About 200 MB went through the logger; a bounded queue keeps about 1000 x 2 KB of it.
    assert.ok(grownMb < 64, `heap grew by ${grownMb.toFixed(1)} MB`)
    t.diagnostic(`logged ${total} entries of 2 KB (~200 MB); heap after GC grew ${grownMb.toFixed(1)} MB`)
  })
})
