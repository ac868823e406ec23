import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'
import { REPO_ROOT } from '../support/promtool.js'
import { scratchFolder } from '../support/scratch.js'

/** scripts/build-native.mjs: the native fs walk compiled without network, or one line saying why not. */

const script = join(REPO_ROOT, 'scripts/build-native.mjs')

test('without a C compiler the native build says so in one line and the build goes on', async (t) => {
  const folder = await scratchFolder(t, 'objstore-native-build-')
  const run = spawnSync(process.execPath, [script, folder], {
    env: { ...process.env, CC: join(folder, 'no-such-cc') },
    encoding: 'utf8',
  })
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  assert.match(
    run.stderr,
    /^native fs walk not built \(.*no-such-cc: ENOENT\); the JavaScript walk is used\n$/,
  )
  assert.deepEqual(readdirSync(folder), [])
})

test('with one, it builds a file that loads and opens a folder (N-API, no node-gyp)', async (t) => {
  const folder = await scratchFolder(t, 'objstore-native-build-')
  const run = spawnSync(process.execPath, [script, folder], { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  if (!existsSync(join(folder, 'fswalk.node'))) {
    if (process.env.CI) assert.fail(`CI must build the native fs walk: ${run.stderr}`)
    return t.skip(run.stderr.trim())
  }
  assert.deepEqual(readdirSync(folder), ['fswalk.node'], 'no temporary file left')
  const addon = createRequire(import.meta.url)(join(folder, 'fswalk.node')) as {
    open(path: string): object | number
    close(handle: object): void
  }
  const handle = addon.open(folder)
  assert.equal(typeof handle, 'object')
  addon.close(handle as object)
  assert.equal(addon.open(join(folder, 'fswalk.node')), -20, 'ENOTDIR for a file')
})

test("npm start's staleness check does not take the built fswalk.node in src/ for a changed source", async (t) => {
  const folder = await scratchFolder(t, 'objstore-ensure-built-')
  for (const dir of ['scripts', 'src', 'dist']) mkdirSync(join(folder, dir))
  copyFileSync(join(REPO_ROOT, 'scripts/ensure-built.mjs'), join(folder, 'scripts/ensure-built.mjs'))
  const at = (path: string, seconds: number) => {
    writeFileSync(join(folder, path), '')
    utimesSync(join(folder, path), seconds, seconds)
  }
  at('src/main.ts', 1_000)
  at('dist/main.js', 2_000)
  // Written by the same build after dist/main.js.
  at('src/fswalk.node', 3_000)
  const check = () =>
    spawnSync(process.execPath, [join(folder, 'scripts/ensure-built.mjs')], { encoding: 'utf8' }).stderr
  assert.equal(check(), '')
  // A change to the C source is a change (no esbuild here: only the warning).
  mkdirSync(join(folder, 'native'))
  at('native/fswalk.c', 4_000)
  assert.match(check(), /dist\/ is older than src\//)
})
