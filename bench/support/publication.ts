import { join } from 'node:path'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { DEFAULT_BUCKET_GROUPS } from '../../src/config/bucket-groups.js'
import type { BucketUsage, UsageSource } from '../../src/sources/types.js'
import { generateSnapshot } from '../../test/support/usage-snapshots.js'
import { answerParent, askFreshChild } from './fresh-child.js'
import { LoopBlockMonitor, LoopBusyMonitor, threadCpuMs } from './loop-delay.js'

/**
 * A scan round of N buckets published and rendered as an exporter does it, in a fresh process
 * whose heap holds only what an exporter holds (the last snapshot, the round's records, the
 * rendering), with the event loop's longest block (perf_hooks) and the main thread's longest
 * stretch (CPU time) meanwhile. Measured inside a bench process instead, the heap also holds the
 * bench's generated snapshots (110,000 records, ~200 MB of old space), which every full collection
 * during the publication marks again: a cost no exporter pays, so that way the row read the
 * bench's heap as much as the exporter's work.
 *
 * The source answers every bucket a fresh copy of generated figures (a few templates, so the
 * process itself holds little), each after a turn of the event loop, as a source awaiting I/O.
 * The first round builds the previous snapshot a real exporter holds; the second is measured.
 * `trace` (PUBLICATION_TRACE=1 in the environment of the bench) also prints every stretch of the
 * event loop over 20 ms with when it ended (ms since the process started, the clock of --trace-gc)
 * and runs the child with --trace-gc, to tell garbage collection from our own work.
 */
export interface PublicationTiming {
  /** The round, from its start to its block rendered. */
  readonly ms: number
  readonly blockMs: number
  readonly busyMs: number
}

type Request = { readonly dist: string; readonly buckets: number; readonly trace: boolean }

export async function timedPublication(dist: string, buckets: number): Promise<PublicationTiming> {
  const trace = process.env.PUBLICATION_TRACE === '1'
  return askFreshChild<PublicationTiming>(import.meta.url, { dist, buckets, trace } satisfies Request, {
    what: 'publication',
    execArgv: [
      '--expose-gc',
      ...(trace ? ['--trace-gc'] : []),
      ...(process.env.PUBLICATION_ARGV ?? '').split(' ').filter(Boolean),
    ],
  })
}

/** Every bucket a fresh copy of one of a few generated records, after a turn of the loop. */
function generatedSource(buckets: number): UsageSource {
  const templates = generateSnapshot({ buckets: 97, objectsPerBucket: 20 }).snapshot.buckets.flatMap(
    (record) => record.usage ?? [],
  )
  const names = Array.from({ length: buckets }, (_, index) => `bucket-${String(index).padStart(6, '0')}`)
  return {
    name: 'generated',
    id: 'generated:scale',
    async beginScan() {
      return {
        buckets: names,
        async measure(bucket: string) {
          await nextTurn()
          return structuredClone(templates[Number(bucket.slice(7)) % templates.length] as BucketUsage)
        },
      }
    },
    async close() {},
  }
}

/** Logs the event loop's stretches over 20 ms, with when each ended and the main thread's CPU time in it. */
function traceStretches(): () => void {
  const cpuMs = threadCpuMs
  let last = performance.now()
  let lastCpu = cpuMs()
  const timer = setInterval(() => {
    const [now, cpu] = [performance.now(), cpuMs()]
    if (now - last > 20)
      process.stderr.write(
        `stretch ${(now - last).toFixed(1)} ms (CPU ${(cpu - lastCpu).toFixed(1)} ms) ending at ${now.toFixed(0)} ms\n`,
      )
    ;[last, lastCpu] = [now, cpu]
  }, 1)
  return () => clearInterval(timer)
}

/**
 * A round of `buckets` published and rendered in this process (the child's work; a bench calls
 * it itself to measure the old way, in its own heap), with the built modules under `dist`.
 */
export async function publishedRound(
  dist: string,
  buckets: number,
  trace = false,
): Promise<PublicationTiming> {
  const load = <T>(relative: string) => import(join(dist, relative)) as Promise<T>
  const { UsageScanner } = await load<typeof import('../../src/scanning/scanner.js')>('scanning/scanner.js')
  const { UsageExposition, seriesBudgetOf } = await load<
    typeof import('../../src/exposition/usage-exposition.js')
  >('exposition/usage-exposition.js')
  const silent = pino({ level: 'silent' })
  const scanner = new UsageScanner({
    source: generatedSource(buckets),
    filter: () => true,
    intervalMs: 3_600_000,
    concurrency: 16,
    timeoutMs: 600_000,
    logger: silent,
  })
  const exposition = new UsageExposition('objstore', {
    budget: seriesBudgetOf({ BUCKET_GROUPS: DEFAULT_BUCKET_GROUPS, BUCKETS_TOP_N: 0, MAX_SERIES: 0 }),
    logger: silent,
  })
  scanner.onSnapshot((snapshot) => exposition.prepare(snapshot))
  const monitor = new LoopBlockMonitor()
  const busy = new LoopBusyMonitor()
  try {
    await exposition.blockFor(await scanner.scanNow())
    globalThis.gc?.()
    await sleep(500)
    const stopTrace = trace ? traceStretches() : () => undefined
    if (trace) process.stderr.write(`measured round starts at ${performance.now().toFixed(0)} ms\n`)
    monitor.start()
    busy.start()
    const started = performance.now()
    await exposition.blockFor(await scanner.scanNow())
    const ms = performance.now() - started
    // A timer's turn before the monitors stop, or a block just before the end goes unseen.
    await sleep(5)
    stopTrace()
    return { ms, blockMs: monitor.stop(), busyMs: busy.stop() }
  } finally {
    await scanner.close()
    await exposition.close()
  }
}

await answerParent<Request>(import.meta.url, (request) =>
  publishedRound(request.dist, request.buckets, request.trace),
)
