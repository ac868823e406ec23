import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/load.js'
import { createExporter } from '../../src/exporter.js'
import { createLogger } from '../../src/logging/create-logger.js'
import type { DeliveryStats } from '../../src/logging/targets/types.js'
import { CapturedOutput } from './capture.js'
import { httpStats, type LogReceiver } from './log-receiver.js'

const FILLER = 'x'.repeat(200)

/** A real exporter on 127.0.0.1 with the real logger, for measuring what logging costs a scrape. */
export interface LoggingExporter {
  /** `http://127.0.0.1:PORT` */
  readonly baseUrl: string
  /** Logs a burst of 500 entries synchronously, as a busy exporter might. */
  burst(round: number): void
  /** One scrape of /metrics; its status, body and how long it took. */
  scrape(): Promise<{ status: number; body: string; ms: number }>
  stats(): DeliveryStats | undefined
  /** The entries the json console printed, without the HTTP target's reports about itself. */
  written(): Record<string, unknown>[]
  close(): Promise<void>
}

/**
 * Starts the exporter with its logger shipping to `receiver` (console+http), or with the console
 * alone when there is none (the baseline). Small queue and timeouts, so trouble shows quickly.
 */
export async function startLoggingExporter(receiver: LogReceiver | undefined): Promise<LoggingExporter> {
  const dataDir = await mkdtemp(join(tmpdir(), 'log-http-scrape-'))
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
  const logging = createLogger(config, { consoleOutput: console, retryBackoff: { baseMs: 20, maxMs: 100 } })
  const exporter = await createExporter(config, {
    logger: logging.logger,
    logDeliveries: logging.deliveries,
  })
  const address = await exporter.app.listen({ host: '127.0.0.1', port: 0 })
  return {
    baseUrl: address,
    burst(round) {
      for (let index = 0; index < 500; index++) {
        logging.logger.info({ round, index, filler: FILLER }, 'burst entry')
      }
    },
    async scrape() {
      const started = performance.now()
      const response = await fetch(`${address}/metrics`)
      const body = await response.text()
      return { status: response.status, body, ms: performance.now() - started }
    },
    stats: () => httpStats(logging),
    written: () => console.jsonLines().filter((entry) => entry.logTarget === undefined),
    async close() {
      await exporter.close()
      await logging.close(100)
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

export interface SideBySide {
  readonly baselineMs: number[]
  readonly stuckMs: number[]
  /** Scrapes of `stuck` that completed while the receiver held a delivery unanswered. */
  readonly completedWhileStuck: number
  /** Every scrape status, both exporters. */
  readonly statuses: number[]
  readonly lastStuckBody: string
}

/**
 * Logs a burst into both exporters each round, then scrapes both, alternating which goes first,
 * so machine noise falls on both alike. The first `warmUpRounds` are not measured.
 */
export async function scrapeSideBySide(
  baseline: LoggingExporter,
  stuck: LoggingExporter,
  receiver: LogReceiver,
  { rounds, warmUpRounds }: { rounds: number; warmUpRounds: number },
): Promise<SideBySide> {
  const result = { baselineMs: [] as number[], stuckMs: [] as number[], statuses: [] as number[] }
  let completedWhileStuck = 0
  let lastStuckBody = ''
  for (let round = 0; round < rounds; round++) {
    baseline.burst(round)
    stuck.burst(round)
    const order = round % 2 === 0 ? [baseline, stuck] : [stuck, baseline]
    for (const exporter of order) {
      const heldBefore = receiver.heldCount > 0
      const scrape = await exporter.scrape()
      result.statuses.push(scrape.status)
      if (exporter === stuck) {
        lastStuckBody = scrape.body
        if (heldBefore && receiver.heldCount > 0) completedWhileStuck++
      }
      if (round >= warmUpRounds) (exporter === stuck ? result.stuckMs : result.baselineMs).push(scrape.ms)
    }
  }
  return { ...result, completedWhileStuck, lastStuckBody }
}
