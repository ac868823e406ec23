import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { NATIVE_BATCH } from '../../src/sources/fs/native-walk.js'
import type { WalkTask } from '../../src/sources/fs/walk.js'
import { bytePath } from '../support/scratch.js'
import { withoutPermissionOverride } from '../support/unprivileged.js'
import { walkBoth } from '../support/walk-both.js'

/**
 * The native fs walk (native/fswalk.c) against the JavaScript one over the same awkward tree:
 * every figure of every task identical, errors by the same code. Built by `npm run build`; CI has
 * a compiler, so there its absence is a failure, elsewhere a skip.
 */

const latin1 = (path: string | Buffer) => Buffer.from(path).toString('latin1')

/**
 * A tree with what a bucket folder may hold besides plain files and folders, in a fresh folder
 * opened to others (for the walk as nobody); given back to its owner and removed when `t` ends.
 */
async function awkwardTree(t: { after: (fn: () => void) => void }): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'objstore-walk-native-'))
  chmodSync(root, 0o755)
  let server: ReturnType<typeof createServer> | undefined
  t.after(() => {
    server?.close()
    for (const folder of ['locked', 'unsearchable']) {
      try {
        chmodSync(join(root, 'bucket', folder), 0o755)
      } catch {
        // not made yet
      }
    }
    rmSync(root, { recursive: true, force: true })
  })
  const bucket = join(root, 'bucket')
  mkdirSync(join(bucket, 'a/b/c'), { recursive: true })
  mkdirSync(join(bucket, 'empty/also-empty'), { recursive: true })
  writeFileSync(join(bucket, 'top'), Buffer.alloc(10))
  writeFileSync(join(bucket, 'a/one'), Buffer.alloc(1234))
  writeFileSync(join(bucket, 'a/b/c/deep'), Buffer.alloc(77))
  writeFileSync(join(bucket, 'a/zero'), '')
  // Fractional milliseconds and times far apart: the ages and the oldest and newest must match.
  utimesSync(join(bucket, 'a/one'), 1_000_000.123456, 1_000_000.123456)
  utimesSync(join(bucket, 'top'), new Date('2001-02-03T04:05:06.789Z'), new Date('2001-02-03T04:05:06.789Z'))
  // Names that are not UTF-8: a file, and a folder holding one.
  writeFileSync(bytePath(bucket, [0x80, 0xff]), Buffer.alloc(3))
  mkdirSync(bytePath(bucket, [0xc3, 0x28]))
  writeFileSync(bytePath(bucket, [0xc3, 0x28], [0xfe]), Buffer.alloc(5))
  // Links to a file, to a folder and to nothing: not objects, not followed.
  symlinkSync(join(bucket, 'a/one'), join(bucket, 'link-to-file'))
  symlinkSync(join(bucket, 'a'), join(bucket, 'link-to-folder'))
  symlinkSync(join(bucket, 'nowhere'), join(bucket, 'dangling'))
  // A fifo and a socket: neither is an object.
  const fifo = spawnSync('mkfifo', [join(bucket, 'a/fifo')])
  assert.equal(fifo.status, 0, `mkfifo: ${fifo.stderr}`)
  const listening = createServer()
  server = listening
  await new Promise<void>((resolve) => listening.listen(join(bucket, 'a/socket'), resolve))
  // More entries than one native read returns, with a folder among them.
  const wide = join(bucket, 'wide')
  mkdirSync(join(wide, 'inner'), { recursive: true })
  for (let index = 0; index < 2 * NATIVE_BATCH + 7; index++)
    writeFileSync(join(wide, `f${index}`), Buffer.alloc(index % 50))
  // No permission: nothing listed (000), or listed but not stat'ed (r without x).
  mkdirSync(join(bucket, 'locked'))
  writeFileSync(join(bucket, 'locked/hidden'), Buffer.alloc(9))
  mkdirSync(join(bucket, 'unsearchable'))
  writeFileSync(join(bucket, 'unsearchable/seen-not-stated'), Buffer.alloc(8))
  chmodSync(join(bucket, 'locked'), 0o000)
  chmodSync(join(bucket, 'unsearchable'), 0o444)
  // Not folders where a folder is asked for.
  writeFileSync(join(root, 'a-file'), 'x')
  symlinkSync(bucket, join(root, 'a-link'))
  return root
}

function tasksFor(root: string): WalkTask[] {
  const bucket = latin1(join(root, 'bucket'))
  const nowMs = Date.parse('2026-06-01T00:00:00Z')
  const prefixes = (delimiter: string) => ({ depth: 2, topK: 50, delimiter })
  const tooLong = `${bucket}/${'d'.repeat(250)}`.padEnd(4200, '/e')
  return [
    { dirs: [bucket], expand: true, isBucketRoot: true, nowMs },
    { dirs: [bucket], expand: false, isBucketRoot: true, nowMs },
    { dirs: [bucket], expand: false, isBucketRoot: true, nowMs, ages: false },
    { dirs: [bucket], expand: false, isBucketRoot: true, nowMs, root: bucket, prefixes: prefixes('/') },
    // A delimiter other than `/`: each file's own path is labelled (the reader hands paths back).
    { dirs: [bucket], expand: false, isBucketRoot: true, nowMs, root: bucket, prefixes: prefixes('-') },
    {
      dirs: [`${bucket}/wide`, `${bucket}/gone`, latin1(join(root, 'a-file')), tooLong],
      expand: false,
      isBucketRoot: false,
      nowMs,
    },
    { dirs: [latin1(join(root, 'missing'))], expand: true, isBucketRoot: true, nowMs },
    { dirs: [latin1(join(root, 'a-file'))], expand: true, isBucketRoot: true, nowMs },
    { dirs: [latin1(join(root, 'a-link'))], expand: false, isBucketRoot: true, nowMs },
    { dirs: [`${bucket}/locked`], expand: false, isBucketRoot: true, nowMs },
  ]
}

test("the native walk gives the JavaScript walk's figures, task by task, over an awkward tree", async (t) => {
  const root = await awkwardTree(t)
  const tasks = tasksFor(root)
  const openFiles = () => readdirSync('/proc/self/fd').length
  const before = openFiles()
  const walks = walkBoth(tasks)
  // Every folder's descriptor is closed, on the error paths too (a folder gone, not a folder, denied).
  assert.equal(openFiles(), before, 'descriptors left open by the walks')
  if (walks.walker !== 'native') {
    if (process.env.CI) assert.fail(`CI must build the native fs walk (npm run build): ${walks.walker}`)
    return t.skip(walks.walker)
  }
  assert.equal(walks.native.length, tasks.length)
  tasks.forEach((task, index) => {
    assert.deepEqual(
      walks.native[index],
      walks.js[index],
      `task ${index}: ${JSON.stringify(task).slice(0, 200)}`,
    )
  })
  // The figures are the tree's, not merely equal: the whole walk counted every object once.
  const whole = walks.native[1] as { usage: { objects: number }; unreadable: number }
  const wideFiles = 2 * NATIVE_BATCH + 7
  const rootCanReadAll = process.getuid?.() === 0
  assert.equal(whole.usage.objects, 6 + wideFiles + (rootCanReadAll ? 2 : 0))
  assert.deepEqual(walks.native.slice(6, 10), [
    { threw: 'ENOENT' },
    { threw: 'ENOTDIR' },
    { threw: 'ENOTDIR' },
    rootCanReadAll ? walks.js[9] : { threw: 'EACCES' },
  ])
})

test('as a user without permission, the native walk counts what it cannot read as the JavaScript walk does', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('the test above ran without root, where permissions apply')
  const root = await awkwardTree(t)
  const script = fileURLToPath(new URL('../support/walk-both.ts', import.meta.url))
  // Root without its power to ignore permissions: unlike `nobody`, it reaches a checkout under a 0700 folder.
  const walk = withoutPermissionOverride(process.execPath, [
    '--import',
    'tsx',
    script,
    JSON.stringify(tasksFor(root)),
  ])
  const run = spawnSync(walk.command, walk.args, { encoding: 'utf8', timeout: 60_000 })
  assert.equal(run.status, 0, `walk-both without permission override: ${run.stderr}`)
  const walks = JSON.parse(run.stdout) as { js: unknown[]; native: unknown[]; walker: string }
  if (walks.walker !== 'native') {
    if (process.env.CI) assert.fail(`CI must build the native fs walk (npm run build): ${walks.walker}`)
    return t.skip(walks.walker)
  }
  assert.deepEqual(walks.native, walks.js)
  const whole = walks.native[1] as { usage: { objects: number }; unreadable: number }
  // `locked` (not listed) and `unsearchable/seen-not-stated` (listed, not stat'ed) are unreadable.
  assert.equal(whole.unreadable, 2)
  assert.deepEqual(walks.native[9], { threw: 'EACCES' })
})

test("a folder over the JavaScript walk's whole-read limit (read by it in batches) gives the same figures", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'objstore-walk-native-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  // Long names make the folder pass 1 MiB (ext4: 8 bytes + name per entry) with fewer files.
  const name = 'n'.repeat(110)
  for (let index = 0; index < 12_000; index++)
    writeFileSync(join(root, `${name}-${index}`), Buffer.alloc(index % 7))
  mkdirSync(join(root, 'sub'))
  if (statSync(root).size <= 1024 * 1024)
    return t.skip('this filesystem reports a folder under the 1 MiB limit')
  const walks = walkBoth([{ dirs: [latin1(root)], expand: true, isBucketRoot: true, nowMs: Date.now() }])
  if (walks.walker !== 'native') {
    if (process.env.CI) assert.fail(`CI must build the native fs walk (npm run build): ${walks.walker}`)
    return t.skip(walks.walker)
  }
  assert.deepEqual(walks.native, walks.js)
  assert.equal((walks.native[0] as { usage: { objects: number } }).usage.objects, 12_000)
})
