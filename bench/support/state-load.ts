import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { answerParent, askFreshChild } from './fresh-child.js'
import { LoopBlockMonitor, LoopBusyMonitor, threadCpuMs } from './loop-delay.js'

/**
 * The state file loaded as an exporter loads it at start: in a fresh process whose heap holds
 * nothing else (not the bench's generated snapshots, whose old space a load's garbage collections
 * would mark over and over), the built loader (`snapshot/state-file.js`), with the event loop's
 * longest block (perf_hooks) and the main thread's longest stretch (CPU time) meanwhile. The
 * baseline runs the same way: the file read whole and each line parsed, nothing checked or kept.
 */
export interface StateLoadTiming {
  readonly ms: number
  /** Main thread CPU time over the load. */
  readonly cpuMs: number
  readonly blockMs: number
  readonly busyMs: number
  readonly buckets: number
}

type Request = {
  readonly what: 'load' | 'parse'
  readonly dist: string
  readonly file: string
  readonly sourceId: string
}

/** One load (or the bare parse) of `file` in a fresh child process. */
export async function timedStateLoad(
  what: Request['what'],
  dist: string,
  file: string,
  sourceId: string,
): Promise<StateLoadTiming> {
  return askFreshChild<StateLoadTiming>(import.meta.url, { what, dist, file, sourceId } satisfies Request, {
    what: 'state load',
  })
}

async function measure(request: Request): Promise<StateLoadTiming> {
  const { loadState } = (await import(
    join(request.dist, 'snapshot/state-file.js')
  )) as typeof import('../../src/snapshot/state-file.js')
  const monitor = new LoopBlockMonitor()
  const busy = new LoopBusyMonitor()
  // Start-up's own work (imports, compiling) settled before the clock starts.
  await sleep(200)
  monitor.start()
  busy.start()
  const cpuStarted = threadCpuMs()
  const started = performance.now()
  let buckets: number
  if (request.what === 'load') {
    const loaded = await loadState(request.file, request.sourceId)
    if (loaded.status !== 'loaded') throw new Error(`state file not loaded: ${loaded.status}`)
    buckets = loaded.snapshot.buckets.length
  } else {
    const text = await readFile(request.file, 'utf8')
    buckets = 0
    for (const line of text.split('\n')) if (line !== '') buckets += JSON.parse(line) ? 1 : 0
    buckets -= 2 // the header and the end line
  }
  const ms = performance.now() - started
  const cpuMs = threadCpuMs() - cpuStarted
  // A timer's turn before the monitors stop, or a block just before the load resolved goes unseen.
  await sleep(5)
  return { ms, cpuMs, blockMs: monitor.stop(), busyMs: busy.stop(), buckets }
}

await answerParent(import.meta.url, measure)
