import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fsScanBench, generateTree, type TreeFigures } from './support/fs-scan.js'
import { report } from './support/report.js'

/**
 * fs scan against `du -sb` on 2,000,000 files (support/fs-scan.ts: how, and the rows). Run only
 * when named (`npm run bench -- fs-2m`): the tree takes minutes to make and ~600 MB of inodes
 * (its files are sparse), so it is made once and kept in the temporary folder for later runs;
 * `--fresh` makes it anew. Delete `objstore-bench-fs-2m*` there to free the space.
 */

const RUNS = 3
const root = join(tmpdir(), 'objstore-bench-fs-2m')
/** Written once the tree is complete: its figures. A tree without it is half made, and made anew. */
const done = `${root}.json`

function cachedTree(): TreeFigures {
  if (!process.argv.includes('--fresh') && existsSync(done)) {
    process.stdout.write(`reusing the tree in ${root} (--fresh makes it anew)\n`)
    return JSON.parse(readFileSync(done, 'utf8')) as TreeFigures
  }
  rmSync(done, { force: true })
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root)
  process.stdout.write(`generating 2,000,000 files in ${root} (kept for later runs) ...\n`)
  const figures = generateTree(root, { days: 1000, folders: 500, sparse: true })
  writeFileSync(done, JSON.stringify(figures))
  return figures
}

const bench = await fsScanBench()
try {
  report(await bench.run(root, cachedTree(), '2,000,000 files', RUNS))
} finally {
  bench.remove()
}
