/**
 * `npm run coverage`: the unit tests under Node's own coverage (--experimental-test-coverage),
 * then a summary of src/ only (tests and helpers left out), by folder and in total, with the
 * least covered files. No threshold: a figure to read, not a gate. The lcov file is kept in
 * coverage/lcov.info for an editor or a report tool. Node lists only the files the tests loaded
 * (main.ts, for one, is not), and measures the main thread only: code run in the render and walk
 * workers shows as uncovered.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

interface Counts {
  lines: number
  linesHit: number
  branches: number
  branchesHit: number
  functions: number
  functionsHit: number
}

const zero = (): Counts => ({
  lines: 0,
  linesHit: 0,
  branches: 0,
  branchesHit: 0,
  functions: 0,
  functionsHit: 0,
})

/** Per source file, the totals of an lcov tracefile (LF/LH, BRF/BRH, FNF/FNH). */
export function parseLcov(text: string): Map<string, Counts> {
  const files = new Map<string, Counts>()
  let current: Counts | undefined
  for (const line of text.split('\n')) {
    const [key, value = ''] = line.split(':', 2) as [string, string?]
    if (key === 'SF') {
      current = zero()
      files.set(line.slice(3), current)
    } else if (current) {
      const n = Number(value)
      if (key === 'LF') current.lines = n
      else if (key === 'LH') current.linesHit = n
      else if (key === 'BRF') current.branches = n
      else if (key === 'BRH') current.branchesHit = n
      else if (key === 'FNF') current.functions = n
      else if (key === 'FNH') current.functionsHit = n
    }
  }
  return files
}

function add(into: Counts, counts: Counts): void {
  for (const key of Object.keys(into) as (keyof Counts)[]) into[key] += counts[key]
}

const percent = (hit: number, all: number) => (all === 0 ? '-' : `${((100 * hit) / all).toFixed(1)}%`)

function row(name: string, counts: Counts): string {
  return [
    name.padEnd(34),
    percent(counts.linesHit, counts.lines).padStart(8),
    percent(counts.branchesHit, counts.branches).padStart(9),
    percent(counts.functionsHit, counts.functions).padStart(10),
  ].join(' ')
}

function main(): number {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const output = join(root, 'coverage')
  mkdirSync(output, { recursive: true })
  const lcovPath = join(output, 'lcov.info')
  const unit = join(root, 'test', 'unit')
  const tests = readdirSync(unit)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => join('test', 'unit', name))
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--experimental-test-coverage',
      '--test-reporter=dot',
      '--test-reporter-destination=stdout',
      '--test-reporter=lcov',
      `--test-reporter-destination=${lcovPath}`,
      ...tests,
    ],
    { cwd: root, stdio: 'inherit' },
  )
  const files = [...parseLcov(readFileSync(lcovPath, 'utf8'))].filter(([path]) => path.startsWith('src/'))
  const folders = new Map<string, Counts>()
  const total = zero()
  for (const [path, counts] of files) {
    const folder = dirname(path)
    const sum = folders.get(folder) ?? zero()
    add(sum, counts)
    folders.set(folder, sum)
    add(total, counts)
  }
  const lines = [
    `\nunit-test coverage of src/ (${files.length} files; ${lcovPath})`,
    `${''.padEnd(34)} ${'lines'.padStart(8)} ${'branches'.padStart(9)} ${'functions'.padStart(10)}`,
  ]
  for (const [folder, counts] of [...folders].sort(([a], [b]) => (a < b ? -1 : 1)))
    lines.push(row(folder, counts))
  lines.push(row('all of src', total), '\nleast covered files (lines):')
  const ratio = (counts: Counts) => (counts.lines === 0 ? 1 : counts.linesHit / counts.lines)
  for (const [path, counts] of files.sort(([, a], [, b]) => ratio(a) - ratio(b)).slice(0, 8)) {
    lines.push(row(path, counts))
  }
  process.stdout.write(`${lines.join('\n')}\n`)
  return run.status ?? 1
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main()
