import { spawn } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { BUILD_ENV, buildFolder, compile } from './support/build.js'
import {
  type PageTable,
  PERFORMANCE_PAGE,
  pageTableFor,
  updatePerformancePage,
} from './support/performance-page.js'
import { type BenchRow, formatTable, RESULT_PREFIX } from './support/report.js'

/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process (so memory figures are not
 * mixed), streams its output, then prints one table of all rows. `npm run bench -- scrape` runs
 * only benches whose file name contains "scrape". Arguments after the filter go to each bench
 * (`npm run bench -- soak --rounds 200`). The soak bench (3,000 scan rounds) and fs-2m (a tree of 2,000,000
 * files, made once and kept) run only when named.
 * Exit code 1 when a target was missed. src/ is compiled once for all of them (support/build.ts).
 * `--docs` (anywhere among the arguments) also writes the table into docs/performance.md: a full
 * run the main table, `npm run bench -- soak --docs` the soak's (support/performance-page.ts).
 */
const started = performance.now()
const folder = fileURLToPath(new URL('.', import.meta.url))
const args = process.argv.slice(2)
const [filter = '', ...benchArgs] = args.filter((arg) => arg !== '--docs')
let pageTable: PageTable | undefined
try {
  if (args.includes('--docs')) pageTable = pageTableFor(filter)
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(2)
}
/** Run only when the filter names them. */
const ON_REQUEST = ['soak.bench.ts', 'fs-2m.bench.ts']
const files = (await readdir(folder))
  .filter((name) => name.endsWith('.bench.ts') && name.includes(filter))
  .filter((name) => filter !== '' || !ON_REQUEST.includes(name))
  .sort()
const build = buildFolder(`objstore-bench-build-${process.pid}`)
compile(build)
const rows: BenchRow[] = []
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', `${folder}${file}`, ...benchArgs],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, [BUILD_ENV]: build },
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
    process.stdout.write(chunk)
  })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  const resultLine = output.split('\n').find((line) => line.startsWith(RESULT_PREFIX))
  if (code !== 0 || !resultLine) {
    rows.push({ name: file, figure: 'crashed', baseline: '-', ratio: null, target: 'runs', pass: false })
    continue
  }
  rows.push(...(JSON.parse(resultLine.slice(RESULT_PREFIX.length)) as BenchRow[]))
}
rmSync(build, { recursive: true, force: true })
process.stdout.write(`\n== summary\n${formatTable(rows)}\n`)
if (pageTable) {
  const path = new URL(`../${PERFORMANCE_PAGE}`, import.meta.url)
  const run = { elapsedMs: performance.now() - started, cores: availableParallelism() }
  writeFileSync(path, updatePerformancePage(readFileSync(path, 'utf8'), pageTable, rows, run))
  process.stdout.write(`${PERFORMANCE_PAGE}: the ${pageTable} table written (review it before committing)\n`)
}
process.exitCode = rows.every((row) => row.pass) ? 0 : 1
