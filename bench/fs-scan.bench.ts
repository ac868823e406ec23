import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { benchBuild } from './support/build.js'
import { median, report } from './support/report.js'

/**
 * fs scan against `du -sb` on the same generated tree of 200,000 files, in the same run, page
 * cache warm for both (each measured after a warm-up pass; medians of five). The scan is the real
 * one: the usage scanner with the fs source, as built for deployment (support/build.ts), worker
 * threads started afresh for each scan as in production. Built, because under tsx each walk
 * thread first starts its own TypeScript loader (~150 ms), a cost deployments do not pay.
 *
 * Scans fold prefixes as deployed by default (PREFIX_DEPTH=1, PREFIX_TOP_K=10); the same scan
 * without them is a second row, so their cost shows.
 *
 * Tree: one large bucket (120,000 files in 600 folders two levels deep) and eight of 10,000, so
 * both the split of one bucket among threads and several buckets at once are exercised.
 */

const RUNS = 5
const TARGET = 1.5

function generate(root: string): { files: number; bytes: number } {
  let files = 0
  let bytes = 0
  const write = (dir: string, count: number) => {
    mkdirSync(dir, { recursive: true })
    for (let index = 0; index < count; index++) {
      const size = (files * 7919) % 4096
      writeFileSync(join(dir, `object-${index}`), Buffer.alloc(size))
      files++
      bytes += size
    }
  }
  for (let year = 0; year < 6; year++) {
    for (let day = 0; day < 100; day++) write(join(root, 'big', `20${20 + year}`, `day-${day}`), 200)
  }
  for (let bucket = 0; bucket < 8; bucket++) {
    for (let folder = 0; folder < 50; folder++) write(join(root, `bucket-${bucket}`, `prefix-${folder}`), 200)
  }
  return { files, bytes }
}

function timeDu(root: string): number {
  const started = performance.now()
  const result = spawnSync('du', ['-sb', root], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`du failed: ${result.stderr}`)
  return performance.now() - started
}

type ScannerModule = typeof import('../src/scanner/scanner.js')
type FsSourceModule = typeof import('../src/scanner/sources/fs/source.js')

const build = benchBuild()
const { UsageScanner } = await build.load<ScannerModule>('scanner/scanner.js')
const { createFsSource } = await build.load<FsSourceModule>('scanner/sources/fs/source.js')

/** PREFIX_DEPTH and PREFIX_TOP_K's defaults: what a deployment folds unless told otherwise. */
const DEFAULT_PREFIXES = { depth: 1, delimiter: '/', topK: 10 } as const

async function timeScan(
  root: string,
  expected: { files: number; bytes: number },
  prefixes: typeof DEFAULT_PREFIXES | undefined = DEFAULT_PREFIXES,
): Promise<number> {
  const scanner = new UsageScanner({
    source: createFsSource({ dataDir: root, threads: 4, prefixes }),
    filter: () => true,
    intervalMs: 3_600_000,
    concurrency: 4,
    timeoutMs: 600_000,
    logger: pino({ level: 'silent' }),
  })
  const started = performance.now()
  const snapshot = await scanner.scanNow()
  const elapsed = performance.now() - started
  await scanner.close()
  const files = snapshot.buckets.reduce((sum, record) => sum + (record.usage?.objects ?? 0), 0)
  const bytes = snapshot.buckets.reduce((sum, record) => sum + (record.usage?.bytes ?? 0), 0)
  if (files !== expected.files || bytes !== expected.bytes) {
    throw new Error(
      `scan counted ${files} files / ${bytes} bytes, expected ${expected.files} / ${expected.bytes}`,
    )
  }
  return elapsed
}

const root = mkdtempSync(join(tmpdir(), 'objstore-bench-fs-'))
try {
  process.stdout.write(`generating 200,000 files in ${root} ...\n`)
  const expected = generate(root)
  timeDu(root)
  await timeScan(root, expected)
  const du: number[] = []
  const scan: number[] = []
  const bare: number[] = []
  for (let run = 0; run < RUNS; run++) {
    du.push(timeDu(root))
    scan.push(await timeScan(root, expected))
    bare.push(await timeScan(root, expected, undefined))
  }
  const figure = median(scan)
  const baseline = median(du)
  process.stdout.write(
    `du -sb: ${du.map((ms) => ms.toFixed(0)).join(', ')} ms; scan: ${scan.map((ms) => ms.toFixed(0)).join(', ')} ms; without prefixes: ${bare.map((ms) => ms.toFixed(0)).join(', ')} ms (${availableParallelism()} cores)\n`,
  )
  report([
    {
      name: `fs scan, ${expected.files.toLocaleString('en')} files`,
      figure: `${figure.toFixed(0)} ms`,
      baseline: `du -sb ${baseline.toFixed(0)} ms`,
      ratio: figure / baseline,
      target: `<= ${TARGET}x du`,
      pass: figure / baseline <= TARGET,
    },
    {
      name: `fs scan, ${expected.files.toLocaleString('en')} files, PREFIX_DEPTH=0 (no prefixes)`,
      figure: `${median(bare).toFixed(0)} ms`,
      baseline: `du -sb ${baseline.toFixed(0)} ms`,
      ratio: median(bare) / baseline,
      target: `<= ${TARGET}x du`,
      pass: median(bare) / baseline <= TARGET,
    },
  ])
} finally {
  rmSync(root, { recursive: true, force: true })
  build.remove()
}
