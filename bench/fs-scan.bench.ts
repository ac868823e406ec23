import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fsScanBench, generateTree } from './support/fs-scan.js'
import { report } from './support/report.js'

/**
 * fs scan against `du -sb` on a generated tree of 200,000 files (support/fs-scan.ts: how, and
 * the rows). The 2,000,000-file tree is fs-2m.bench.ts, run only when named.
 */

/**
 * Alternated rounds, medians compared. Nine, not five: du -sb alone read 368-513 ms within one
 * run of five (median 387 ms against 419-495 ms a minute later), enough to fail a row on its
 * baseline; each round is ~1.3 s.
 */
const RUNS = 9

const root = mkdtempSync(join(tmpdir(), 'objstore-bench-fs-'))
const bench = await fsScanBench()
try {
  process.stdout.write(`generating 200,000 files in ${root} ...\n`)
  const expected = generateTree(root, { days: 100, folders: 50, sparse: false })
  report(await bench.run(root, expected, '200,000 files', RUNS))
} finally {
  rmSync(root, { recursive: true, force: true })
  bench.remove()
}
