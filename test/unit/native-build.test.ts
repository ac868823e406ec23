import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'
import { nativeWalk } from '../../src/sources/fs/native-walk.js'
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

test('the build writes the file into dist/ and native/build/, never into src/ (and clears one left there)', async (t) => {
  const repo = await scratchFolder(t, 'objstore-native-layout-')
  for (const dir of ['scripts', 'native', 'src']) mkdirSync(join(repo, dir))
  copyFileSync(script, join(repo, 'scripts/build-native.mjs'))
  copyFileSync(join(REPO_ROOT, 'native/fswalk.c'), join(repo, 'native/fswalk.c'))
  // What an earlier build wrote into src/.
  writeFileSync(join(repo, 'src/fswalk.node'), '')
  const run = spawnSync(process.execPath, [join(repo, 'scripts/build-native.mjs')], { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  if (!existsSync(join(repo, 'dist/fswalk.node'))) {
    if (process.env.CI) assert.fail(`CI must build the native fs walk: ${run.stderr}`)
    return t.skip(run.stderr.trim())
  }
  assert.ok(existsSync(join(repo, 'native/build/fswalk.node')), 'for src/ run through tsx')
  assert.deepEqual(readdirSync(join(repo, 'src')), [], 'nothing built in src/')
})

test('src/ run through tsx walks with native/build/fswalk.node', (t) => {
  if (!existsSync(join(REPO_ROOT, 'native/build/fswalk.node'))) {
    if (process.env.CI) assert.fail('CI must build the native fs walk (npm run build)')
    return t.skip('native/build/fswalk.node not built (npm run build)')
  }
  assert.equal(nativeWalk().walker, 'native')
})
