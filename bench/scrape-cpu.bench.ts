import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import pino from 'pino'
import { acceptsGzip } from '../src/server/routes/metrics.js'
import { idiomaticRegistry } from '../test/support/prom-client-usage.js'
import { benchBuild } from './support/build.js'
import { startPublishingExporter } from './support/exporter-publication.js'
import { LoopBlockMonitor } from './support/loop-delay.js'
import { type BenchRow, report } from './support/report.js'
import { type ScrapeResults, startScrapeClient } from './support/scrape-client.js'
import { createUsageState } from './support/usage-state.js'

/**
 * Target 1: what a scrape at 10,000 buckets costs (every per-bucket family, the histogram
 * included), against the idiomatic prom-client way of exporting the same snapshot in the same
 * process: a labelled Gauge per family with set() per series (done once, outside the
 * measurement, which favours the baseline), a Histogram fed per object, registry.metrics() per
 * scrape, gzip on top when asked. Both are served over HTTP in this process and scraped from a
 * child process, one scrape at a time; CPU time is this process's (all threads, so compression
 * on libuv's pool counts). The exporter is the real one (createExporter from the build) with the
 * snapshot loaded from its state file. Then the event loop's longest block: during those scrapes,
 * and while two fresh snapshots of 10,000 buckets (real fs scans) are published and rendered
 * under a steady stream of gzip scrapes. The publication is measured on the same exporter in a
 * fresh process (support/exporter-publication.ts): this process also holds the bench's generated
 * snapshot (10,000 records and the 200,000 objects behind them, kept for prom-client's registry),
 * which every collection during the publication walked too, a cost no exporter has. The old way,
 * in this process, still runs after it and is printed beside it ("in the bench's process").
 */

const BUCKETS = 10_000
const OURS_SCRAPES = 30
const BASELINE_SCRAPES = 4
const CPU_TARGET = 30
const BLOCK_TARGET_MS = 50
const gzip = promisify(gzipCallback)

type LoadModule = typeof import('../src/config/load.js')
type ExporterModule = typeof import('../src/exporter.js')

const build = benchBuild()
const { loadConfig } = await build.load<LoadModule>('config/load.js')
const { createExporter } = await build.load<ExporterModule>('exporter.js')

process.stdout.write(`generating a snapshot of ${BUCKETS.toLocaleString('en')} buckets ...\n`)
const state = await createUsageState({ buckets: BUCKETS, objectsPerBucket: 20, filesPerBucket: 2 })
const client = startScrapeClient()
const monitor = new LoopBlockMonitor()
const cleanups: Array<() => Promise<void> | void> = [
  () => state.remove(),
  () => build.remove(),
  () => client.close(),
]

try {
  const exporter = await createExporter(
    loadConfig(
      {
        DATA_DIR: state.dataDir,
        STATE_FILE: state.stateFile,
        SCAN_INTERVAL_SECONDS: '3600',
        LOG_LEVEL: 'warn',
      },
      { dotenvPath: false },
    ),
    { logger: pino({ level: 'warn' }) },
  )
  cleanups.unshift(() => exporter.close())
  await exporter.app.listen({ host: '127.0.0.1', port: 0 })
  const ours = `http://127.0.0.1:${(exporter.app.server.address() as AddressInfo).port}/metrics`
  const zipped = { 'Accept-Encoding': 'gzip' }
  // The publication phase ends with an inject; Fastify loads light-my-request on the first one
  // (a synchronous require, 20-130 ms here under tsx's loader). Loaded now, outside any
  // measurement: that block is the bench's, not the exporter's (production never injects).
  await exporter.app.inject({ url: '/metrics', headers: zipped })

  // under-pressure answers 503 for a second after the event loop was held for more than
  // MAX_EVENT_LOOP_DELAY_MS; this process holds it in setup and in every prom-client scrape, so the
  // exporter is measured after a pause, and before any prom-client scrape.
  const settle = async () => {
    globalThis.gc?.()
    await sleep(2500)
  }
  const measure = async (url: string, headers: Record<string, string>, count: number) => {
    await client.run(url, headers, 2)
    await settle()
    monitor.start()
    const before = process.cpuUsage()
    const results = await client.run(url, headers, count)
    const used = process.cpuUsage(before)
    const blockMs = monitor.stop()
    const failed = results.statuses.filter((status) => status !== 200).length
    if (failed > 0) throw new Error(`${url}: ${failed} scrapes failed: ${results.statuses.join(',')}`)
    return { cpuMs: (used.user + used.system) / 1000 / count, blockMs, bytes: results.bytes / count }
  }
  const plain = {}
  const oursPlain = await measure(ours, plain, OURS_SCRAPES)
  const oursGzip = await measure(ours, zipped, OURS_SCRAPES)

  // Publication: two real scans of 10,000 bucket folders, each published and rendered while gzip
  // scrapes keep coming; the phase ends once the last snapshot's compressed block is served. In
  // a fresh process holding only the exporter; then the old way, in this one.
  const child = await startPublishingExporter(build.dir, {
    DATA_DIR: state.dataDir,
    STATE_FILE: state.stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
  })
  cleanups.unshift(() => child.close())
  let stopChildLoop: (() => Promise<ScrapeResults>) | undefined
  const { blockMs: publishBlockMs, busyMs: publishBusyMs } = await child.publish(() => {
    stopChildLoop = client.loop(child.url, zipped)
  })
  const during = await (stopChildLoop as () => Promise<ScrapeResults>)()
  const publishFailures = during.statuses.filter((status) => status !== 200).length
  await child.close()
  await settle()
  const stopLoop = client.loop(ours, zipped)
  monitor.start()
  for (let scan = 0; scan < 2; scan++) await exporter.scanner.scanNow()
  await exporter.app.inject({ url: '/metrics', headers: zipped })
  const inBenchBlockMs = monitor.stop()
  const inBench = await stopLoop()
  const inBenchFailures = inBench.statuses.filter((status) => status !== 200).length

  // prom-client's registry only now: its half a million series would otherwise weigh on the
  // exporter's garbage collections while its event-loop blocks are measured.
  const registry = idiomaticRegistry(state.generated, 'objstore', 'text')
  const idiomatic = createServer(async (request, response) => {
    const text = await registry.metrics()
    if (acceptsGzip(request.headers['accept-encoding'])) {
      response.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Encoding': 'gzip' })
      response.end(await gzip(text))
    } else {
      response.writeHead(200, { 'Content-Type': registry.contentType })
      response.end(text)
    }
  })
  idiomatic.listen(0, '127.0.0.1')
  await once(idiomatic, 'listening')
  cleanups.unshift(() => new Promise((resolve) => idiomatic.close(() => resolve())))
  const baseline = `http://127.0.0.1:${(idiomatic.address() as AddressInfo).port}/metrics`

  const series = (await registry.metrics()).split('\n').filter((line) => line && !line.startsWith('#')).length
  const basePlain = await measure(baseline, plain, BASELINE_SCRAPES)
  const baseGzip = await measure(baseline, zipped, BASELINE_SCRAPES)
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
  process.stdout.write(
    `${series.toLocaleString('en')} series; body ${mb(oursPlain.bytes)}, gzip ${mb(oursGzip.bytes)} ` +
      `(prom-client gzip ${mb(baseGzip.bytes)})\n` +
      `CPU per scrape: ours ${oursPlain.cpuMs.toFixed(1)} / ${oursGzip.cpuMs.toFixed(1)} ms, ` +
      `prom-client ${basePlain.cpuMs.toFixed(0)} / ${baseGzip.cpuMs.toFixed(0)} ms (plain / gzip)\n`,
  )
  // The idiomatic equivalent of publishing a snapshot: set() per series and observe() per object.
  const rebuildStarted = performance.now()
  idiomaticRegistry(state.generated, 'objstore', 'text')
  const rebuildMs = performance.now() - rebuildStarted
  process.stdout.write(
    `publication: ${during.statuses.length} gzip scrapes during it, ${publishFailures} not 200; ` +
      `longest block ${publishBlockMs.toFixed(1)} ms (thread busy ${publishBusyMs.toFixed(1)} ms); in the bench's process ${inBenchBlockMs.toFixed(1)} ms ` +
      `(${inBench.statuses.length} scrapes, ${inBenchFailures} not 200); prom-client set() per series ${rebuildMs.toFixed(0)} ms\n`,
  )

  const label = `10,000 buckets (${series.toLocaleString('en')} series)`
  const cpuRow = (name: string, figure: number, base: number): BenchRow => ({
    name,
    figure: `${figure.toFixed(1)} ms CPU`,
    baseline: `prom-client ${base.toFixed(0)} ms`,
    ratio: base / figure,
    target: `>= ${CPU_TARGET}x less`,
    pass: base / figure >= CPU_TARGET,
  })
  const scrapeBlockMs = Math.max(oursPlain.blockMs, oursGzip.blockMs)
  const baseBlockMs = Math.max(basePlain.blockMs, baseGzip.blockMs)
  report([
    cpuRow(`scrape CPU, ${label}`, oursPlain.cpuMs, basePlain.cpuMs),
    cpuRow(`scrape CPU with gzip, ${label}`, oursGzip.cpuMs, baseGzip.cpuMs),
    {
      name: 'longest event-loop block during scrapes',
      figure: `${scrapeBlockMs.toFixed(1)} ms`,
      baseline: `prom-client ${baseBlockMs.toFixed(0)} ms`,
      ratio: baseBlockMs / scrapeBlockMs,
      target: `< ${BLOCK_TARGET_MS} ms`,
      pass: scrapeBlockMs < BLOCK_TARGET_MS,
    },
    {
      name: 'longest event-loop block, 2 snapshots published',
      figure: `${publishBlockMs.toFixed(1)} ms (busy ${publishBusyMs.toFixed(0)} ms; ${during.statuses.length} scrapes, ${publishFailures} failed)`,
      baseline: `prom-client set() ${rebuildMs.toFixed(0)} ms`,
      ratio: rebuildMs / publishBlockMs,
      target: `< ${BLOCK_TARGET_MS} ms`,
      pass: publishBlockMs < BLOCK_TARGET_MS && publishFailures === 0,
    },
  ])
} finally {
  for (const cleanup of cleanups) await cleanup()
}
