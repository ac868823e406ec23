import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { benchBuild } from './build.js'
import { LoopBlockMonitor, LoopBusyMonitor } from './loop-delay.js'
import { type BenchRow, median } from './report.js'

/*
 * The fs scan against `du -sb` on one generated tree, in the same run, page cache warm for both
 * (a warm-up pass of each first), rounds alternated (du, default scan, BUCKET_METRICS=all scan)
 * and medians taken, since the cores are shared. The scan is the real one: the scanner as the
 * exporter builds it from its configuration (BUCKETS_SOURCE=fs, SCAN_CONCURRENCY's default), as
 * built for deployment (support/build.ts), walk threads started afresh for each scan as in
 * production. Built, because under tsx each walk thread first starts its own TypeScript loader.
 */

/**
 * The tree: one large bucket (`days` folders in each of six year folders) and eight buckets of
 * `folders` folders, 200 files in every folder, so both the split of one bucket among threads
 * and several buckets at once are exercised. Sizes cycle through 0-4095 bytes.
 */
export interface TreeShape {
  readonly days: number
  readonly folders: number
  /** Files get their size by truncate, without data blocks (du -sb and the scan see the same sizes). */
  readonly sparse: boolean
}

export interface TreeFigures {
  readonly files: number
  readonly bytes: number
}

const FILES_PER_FOLDER = 200

export function generateTree(root: string, shape: TreeShape): TreeFigures {
  let files = 0
  let bytes = 0
  const write = (dir: string) => {
    mkdirSync(dir, { recursive: true })
    for (let index = 0; index < FILES_PER_FOLDER; index++) {
      const size = (files * 7919) % 4096
      const path = join(dir, `object-${index}`)
      if (shape.sparse) {
        writeFileSync(path, '')
        if (size > 0) truncateSync(path, size)
      } else writeFileSync(path, Buffer.alloc(size))
      files++
      bytes += size
    }
  }
  for (let year = 0; year < 6; year++) {
    for (let day = 0; day < shape.days; day++) write(join(root, 'big', `20${20 + year}`, `day-${day}`))
  }
  for (let bucket = 0; bucket < 8; bucket++) {
    for (let folder = 0; folder < shape.folders; folder++) {
      write(join(root, `bucket-${bucket}`, `prefix-${folder}`))
    }
  }
  return { files, bytes }
}

/** CPU of this process's reaped children so far, ms (/proc/self/stat cutime + cstime, in clock ticks). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // After the name: state is field 3, cutime and cstime fields 16 and 17 (proc(5)); 100 ticks a second.
  return (Number(fields[13]) + Number(fields[14])) * (1000 / CLOCK_TICKS)
}
/** USER_HZ: 100 on every Linux build Node runs on. */
const CLOCK_TICKS = 100

interface DuTiming {
  readonly ms: number
  /** du's CPU (user + system), at the 10 ms resolution the kernel counts it in. */
  readonly cpuMs: number
}

function timeDu(root: string): DuTiming {
  const cpuBefore = childrenCpuMs()
  const started = performance.now()
  const result = spawnSync('du', ['-sb', root], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`du failed: ${result.stderr}`)
  return { ms: performance.now() - started, cpuMs: childrenCpuMs() - cpuBefore }
}

type LoadModule = typeof import('../../src/config/load.js')
type ScannerIndexModule = typeof import('../../src/scanning/index.js')

interface ScanTiming {
  readonly ms: number
  /** perf_hooks' longest event-loop delay: our own blocks and any wait for a core. */
  readonly delayMs: number
  /** The longest stretch the main thread ran without returning to the loop (its CPU time). */
  readonly busyMs: number
  /** The process's CPU (every thread: the walk threads, their start, the main thread's merge). */
  readonly cpuMs: number
}

export interface FsScanBench {
  /** Runs the rounds on `root` (a tree of `expected` figures) and returns the rows. */
  run(root: string, expected: TreeFigures, label: string, rounds: number): Promise<BenchRow[]>
  remove(): void
}

/** The target: the scan, both cores walking, no slower than du on one. */
const TARGET = 1.0
/** The longest the event loop may be held while the threads walk. */
const BLOCK_TARGET_MS = 50

export async function fsScanBench(): Promise<FsScanBench> {
  const build = benchBuild()
  const { loadConfig } = await build.load<LoadModule>('config/load.js')
  const { createScannerFromConfig } = await build.load<ScannerIndexModule>('scanning/index.js')
  const delay = new LoopBlockMonitor()
  const busy = new LoopBusyMonitor()

  async function timeScan(root: string, expected: TreeFigures, bucketMetrics: string): Promise<ScanTiming> {
    const config = loadConfig(
      { BUCKETS_SOURCE: 'fs', DATA_DIR: root, BUCKET_METRICS: bucketMetrics, SCAN_INTERVAL_SECONDS: '3600' },
      { dotenvPath: false },
    )
    const scanner = await createScannerFromConfig(config, pino({ level: 'silent' }))
    delay.start()
    busy.start()
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    const snapshot = await scanner.scanNow()
    const ms = performance.now() - started
    const cpu = process.cpuUsage(cpuBefore)
    const busyMs = busy.stop()
    const delayMs = delay.stop()
    await scanner.close()
    const files = snapshot.buckets.reduce((sum, record) => sum + (record.usage?.objects ?? 0), 0)
    const bytes = snapshot.buckets.reduce((sum, record) => sum + (record.usage?.bytes ?? 0), 0)
    if (files !== expected.files || bytes !== expected.bytes) {
      throw new Error(
        `scan counted ${files} files / ${bytes} bytes, expected ${expected.files} / ${expected.bytes}`,
      )
    }
    return { ms, delayMs, busyMs, cpuMs: (cpu.user + cpu.system) / 1000 }
  }

  return {
    async run(root, expected, label, rounds) {
      timeDu(root)
      await timeScan(root, expected, '')
      await timeScan(root, expected, 'all')
      const du: DuTiming[] = []
      const scans: ScanTiming[] = []
      const all: ScanTiming[] = []
      for (let round = 0; round < rounds; round++) {
        du.push(timeDu(root))
        scans.push(await timeScan(root, expected, ''))
        all.push(await timeScan(root, expected, 'all'))
      }
      const list = (values: readonly number[]) => values.map((ms) => ms.toFixed(0)).join(', ')
      const busiest = Math.max(...[...scans, ...all].map((scan) => scan.busyMs))
      const latest = Math.max(...[...scans, ...all].map((scan) => scan.delayMs))
      process.stdout.write(
        `${label}: du -sb ${list(du.map((run) => run.ms))} ms; scan ${list(scans.map((scan) => scan.ms))} ms; BUCKET_METRICS=all ${list(all.map((scan) => scan.ms))} ms (${availableParallelism()} cores)\n` +
          `event loop during the scans: longest run ${busiest.toFixed(1)} ms of the main thread's CPU; longest delay ${latest.toFixed(1)} ms (perf_hooks: also the waits for a core)\n`,
      )
      const baseline = median(du.map((run) => run.ms))
      const perFile = (cpuMs: number) => (cpuMs * 1000) / expected.files
      const duCpu = perFile(median(du.map((run) => run.cpuMs)))
      const scanCpu = perFile(median(scans.map((scan) => scan.cpuMs)))
      const allCpu = perFile(median(all.map((scan) => scan.cpuMs)))
      process.stdout.write(
        `CPU per file (medians): du -sb ${duCpu.toFixed(2)} us; scan ${scanCpu.toFixed(2)} us; BUCKET_METRICS=all ${allCpu.toFixed(2)} us\n`,
      )
      const row = (name: string, timings: readonly ScanTiming[]): BenchRow => {
        const figure = median(timings.map((scan) => scan.ms))
        return {
          name,
          figure: `${figure.toFixed(0)} ms`,
          baseline: `du -sb ${baseline.toFixed(0)} ms`,
          ratio: figure / baseline,
          target: `<= ${TARGET}x du`,
          pass: figure / baseline <= TARGET,
        }
      }
      return [
        row(`fs scan, ${label}`, scans),
        row(`fs scan, ${label}, BUCKET_METRICS=all`, all),
        {
          name: `fs scan, ${label}: CPU per file`,
          figure: `${scanCpu.toFixed(2)} us`,
          baseline: `du -sb ${duCpu.toFixed(2)} us`,
          ratio: scanCpu / duCpu,
          target: 'reported',
          pass: true,
        },
        {
          name: `fs scan, ${label}: longest event-loop block`,
          figure: `${busiest.toFixed(1)} ms`,
          baseline: `delay ${latest.toFixed(1)} ms`,
          ratio: null,
          target: `< ${BLOCK_TARGET_MS} ms`,
          pass: busiest < BLOCK_TARGET_MS,
        },
      ]
    },
    remove: () => build.remove(),
  }
}
