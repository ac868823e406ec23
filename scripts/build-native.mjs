/**
 * The native fs walk (native/fswalk.c, N-API): compiled with the system C compiler against the
 * headers of the Node running this script (`<prefix>/include/node`, beside process.execPath; the
 * official node images have them), without node-gyp and without the network. N-API only, so the
 * file runs on any Node of the same platform from 20 on. Called by scripts/build.mjs; on its own:
 *   node scripts/build-native.mjs [folder...]   (default: dist and native/build)
 *
 * The file is `fswalk.node` in dist/ (beside the bundle: the image) and in native/build/ (for src/
 * run through tsx: tests, `npm run dev`), never in src/, which holds only sources;
 * src/sources/fs/native-walk.ts looks for it in both. Never committed (.gitignore).
 * Without a compiler or headers the build prints one line and goes on: the exporter then walks
 * with JavaScript (and logs so at its first scan).
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const NATIVE_WALK_FILE = 'fswalk.node'
/** Where src/ run through tsx finds the file (native-walk.ts looks there from the source tree). */
export const SOURCE_TREE_NATIVE = join(root, 'native/build')
const SOURCE = join(root, 'native/fswalk.c')

/**
 * -ffp-contract=off: the mtime is computed as Node computes Stats.mtimeMs (a multiply and an add
 * in doubles); a fused multiply-add (the default of gcc on arm64) would round differently.
 */
const FLAGS = [
  '-O2',
  '-std=gnu11',
  '-fPIC',
  '-shared',
  '-fvisibility=hidden',
  '-ffp-contract=off',
  '-Wall',
  '-Wextra',
]

/** Compiles the addon into each of `folders`; returns false (after one line on stderr) if it could not. */
export function buildNative(folders) {
  // Builds before native/build/ wrote the file into src/: nothing reads it there now.
  rmSync(join(root, 'src', NATIVE_WALK_FILE), { force: true })
  const compiler = process.env.CC || 'cc'
  const headers = join(dirname(dirname(process.execPath)), 'include/node')
  if (!existsSync(join(headers, 'node_api.h'))) {
    process.stderr.write(
      `native fs walk not built: no Node headers in ${headers}; the JavaScript walk is used\n`,
    )
    return false
  }
  const scratch = mkdtempSync(join(tmpdir(), 'objstore-native-'))
  try {
    const output = join(scratch, NATIVE_WALK_FILE)
    const run = spawnSync(compiler, [...FLAGS, `-I${headers}`, '-o', output, SOURCE], { encoding: 'utf8' })
    if (run.error || run.status !== 0) {
      const why = run.error ? `${compiler}: ${run.error.code ?? run.error.message}` : run.stderr.trim()
      process.stderr.write(`native fs walk not built (${why}); the JavaScript walk is used\n`)
      return false
    }
    for (const folder of folders) {
      mkdirSync(folder, { recursive: true })
      // Replaced by a rename, never rewritten in place: a running exporter or test has the old
      // file mapped, and changing its pages under it would crash it.
      const target = join(folder, NATIVE_WALK_FILE)
      copyFileSync(output, `${target}.${process.pid}.tmp`)
      renameSync(`${target}.${process.pid}.tmp`, target)
    }
    return true
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const folders = process.argv.slice(2)
  buildNative(folders.length > 0 ? folders : [join(root, 'dist'), SOURCE_TREE_NATIVE])
}
