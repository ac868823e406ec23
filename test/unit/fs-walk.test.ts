import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { bucketFolder, bucketLabel } from '../../src/sources/fs/source.js'
import { MAX_STUCK_WALKS, stuckWalkFor, stuckWalks } from '../../src/sources/fs/stuck-walks.js'
import { FILES_PER_PROGRESS, walkDirectory } from '../../src/sources/fs/walk.js'
import { WalkPool } from '../../src/sources/fs/walk-pool.js'
import { mountHungFilesystem } from '../support/hung-mount.js'
import { bytePath, scratchFolder } from '../support/scratch.js'
import { waitFor } from '../support/wait-for.js'

test('expanding folds the files of a folder and hands its subfolders back unwalked', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  await mkdir(join(root, 'a/deeper'), { recursive: true })
  await mkdir(join(root, 'b'))
  await writeFile(join(root, 'top'), Buffer.alloc(10))
  await writeFile(join(root, 'a/deeper/x'), Buffer.alloc(20))
  await symlink(join(root, 'top'), join(root, 'link'))
  const expanded = walkDirectory({ dirs: [root], expand: true, isBucketRoot: true, nowMs: Date.now() })
  assert.equal(expanded.usage.objects, 1)
  assert.equal(expanded.usage.bytes, 10)
  assert.deepEqual([...expanded.subdirs].sort(), [join(root, 'a'), join(root, 'b')])
  const whole = walkDirectory({ dirs: [root], expand: false, isBucketRoot: true, nowMs: Date.now() })
  assert.deepEqual([whole.usage.objects, whole.usage.bytes, whole.subdirs.length], [2, 30, 0])
})

test('a missing bucket folder is an error; a subfolder gone since it was listed is skipped', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  assert.throws(
    () => walkDirectory({ dirs: [join(root, 'nope')], expand: true, isBucketRoot: true, nowMs: Date.now() }),
    {
      code: 'ENOENT',
    },
  )
  const gone = walkDirectory({
    dirs: [join(root, 'nope')],
    expand: false,
    isBucketRoot: false,
    nowMs: Date.now(),
  })
  assert.equal(gone.usage.objects, 0)
})

test('a folder too large to read whole is read in batches, with the same figures', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  // Long names make the folder pass the 1 MiB limit (ext4: 8 bytes + name per entry) with fewer files.
  const files = 12_000
  const name = 'n'.repeat(110)
  for (let start = 0; start < files; start += 1000) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, offset) => writeFile(join(root, `${name}-${start + offset}`), 'x')),
    )
  }
  const size = (await stat(root)).size
  if (size <= 1024 * 1024) return t.skip(`this filesystem reports folder size ${size}, under the 1 MiB limit`)
  const result = walkDirectory({ dirs: [root], expand: false, isBucketRoot: true, nowMs: Date.now() })
  assert.equal(result.usage.objects, files)
  assert.equal(result.usage.bytes, files)
})

test('names that are not UTF-8 are walked byte for byte; a path over PATH_MAX is counted, not fatal', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-')
  // Two names that decode to the same U+FFFD text, each its own file.
  writeFileSync(bytePath(root, [0x80]), Buffer.alloc(3))
  writeFileSync(bytePath(root, [0x81]), Buffer.alloc(4))
  mkdirSync(bytePath(root, [0xff, 0x2e]))
  writeFileSync(bytePath(root, [0xff, 0x2e], 'x'), Buffer.alloc(5))
  const walked = walkDirectory({
    dirs: [Buffer.from(root).toString('latin1')],
    expand: false,
    isBucketRoot: true,
    nowMs: Date.now(),
  })
  assert.deepEqual([walked.usage.objects, walked.usage.bytes, walked.unreadable], [3, 12, 0])

  // A folder whose path is longer than PATH_MAX cannot be read by path: counted once, the rest folded.
  const long = `${root}/${'d'.repeat(250)}`.padEnd(4200, '/e')
  const tooLong = walkDirectory({
    dirs: [Buffer.from(root).toString('latin1'), long],
    expand: false,
    isBucketRoot: false,
    nowMs: Date.now(),
  })
  assert.deepEqual([tooLong.usage.objects, tooLong.unreadable], [3, 1])
})

test('bucket labels: UTF-8 names are their own label; others are escaped, distinct and reversible', () => {
  const names = [
    Buffer.from('photos-2026'),
    Buffer.from('caf\u00e9 \u{1f600}'),
    Buffer.from([0x62, 0x80]),
    Buffer.from([0x62, 0x81]),
    Buffer.from([0x62, 0xc3]),
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate: not UTF-8
    Buffer.from([0xc0, 0xaf]), // an overlong '/': not UTF-8
    Buffer.from('b\\x80'), // what reads as an escape, but is the name itself
    Buffer.from('b\\\\'),
    Buffer.from('back\\slash'),
  ]
  const labels = names.map(bucketLabel)
  assert.deepEqual(labels.slice(0, 4), ['photos-2026', 'caf\u00e9 \u{1f600}', 'b\\x80', 'b\\x81'])
  assert.equal(labels[7], 'b\\\\x80')
  assert.equal(labels[9], 'back\\slash', 'a backslash that reads as no escape is kept as it is')
  assert.equal(new Set(labels).size, names.length, `labels collide: ${labels.join(' ')}`)
  names.forEach((name, index) => {
    assert.deepEqual(bucketFolder(labels[index] as string), name)
  })
})

/**
 * Threads of this process waiting in the kernel on a FUSE request (state D, wait channel fuse_* or
 * request_wait_answer): here, in the hung mount. Other threads in state D (disk I/O of a busy
 * machine) come and go and are not counted, so the count cannot be thrown off by them.
 */
function threadsWaitingOnFuse(): number {
  return readdirSync('/proc/self/task').filter((task) => {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
      const wchan = readFileSync(`/proc/self/task/${task}/wchan`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('D') && /fuse|request_wait_answer/.test(wchan)
    } catch {
      return false // the thread ended while being read
    }
  }).length
}

test('walk threads stuck on a hung filesystem are counted until it answers, and capped', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'objstore-walk-'))
  const mountPoint = join(root, 'hung')
  await mkdir(mountPoint)
  const hung = await mountHungFilesystem(mountPoint)
  const pool = new WalkPool(MAX_STUCK_WALKS)
  const stops: AbortController[] = []
  // Whatever failed: walks stopped and the mount released (the stuck threads then return), the
  // pool closed, and only then the folder removed: a thread left waiting would keep this test
  // file's process from ever exiting, and removing a tree with a hung mount in it would hang.
  t.after(async () => {
    for (const stop of stops) stop.abort(new Error('test ended'))
    if (typeof hung !== 'string') await hung.release()
    await pool.close()
    await rm(root, { recursive: true, force: true })
  })
  if (typeof hung === 'string') {
    // A machine without /dev/fuse cannot have it installed by CI; one with it must mount.
    if (process.env.CI && !hung.startsWith('no /dev/fuse'))
      throw new Error(`CI must be able to mount a FUSE filesystem: ${hung}`)
    return t.skip(hung)
  }
  const walks = Array.from({ length: MAX_STUCK_WALKS }, (_, index) => {
    const stop = new AbortController()
    stops.push(stop)
    const task = { dirs: [mountPoint], expand: false, isBucketRoot: true, nowMs: Date.now() }
    return { stop, walk: pool.run(task, stop.signal, `bucket-${index}`) }
  })
  for (const { walk } of walks) walk.catch(() => undefined)
  await waitFor(
    'every walk thread to wait in the hung mount',
    () => threadsWaitingOnFuse() >= MAX_STUCK_WALKS,
    {
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  )
  for (const { stop } of walks) stop.abort(new Error('timed out'))
  for (const { walk } of walks) await assert.rejects(walk, /timed out/)
  await pool.close()
  assert.equal(stuckWalks(), MAX_STUCK_WALKS, 'each stopped thread is still in the kernel')
  assert.match(stuckWalkFor('bucket-3') ?? '', /has not returned from the filesystem/)
  assert.match(stuckWalkFor('another') ?? '', new RegExp(`${MAX_STUCK_WALKS} walk threads are stuck`))

  await hung.release()
  await waitFor('the stuck threads to end', () => stuckWalks() === 0, { timeoutMs: 20_000, intervalMs: 50 })
  assert.equal(stuckWalkFor('bucket-3'), undefined)
})

test('a walk tells its progress every so many files, and the pool the rest, adding up to the figures', async (t) => {
  const root = await scratchFolder(t, 'objstore-walk-progress-')
  // Reports are due every EVERY files (checked every 4,096 files): files for one report, in two folders.
  const EVERY = 4096
  const files = EVERY + 100
  mkdirSync(join(root, 'a'))
  mkdirSync(join(root, 'b'))
  for (let index = 0; index < files; index++)
    writeFileSync(join(root, index % 2 === 0 ? 'a' : 'b', `f${index}`), index % 3 === 0 ? 'xy' : 'x')
  const bytes = files + Math.ceil(files / 3)
  const told: Array<[number, number]> = []
  const whole = walkDirectory(
    { dirs: [root], expand: false, isBucketRoot: true, nowMs: Date.now() },
    { progress: (objects, sum) => told.push([objects, sum]), filesPerProgress: EVERY },
  )
  assert.deepEqual([whole.usage.objects, whole.usage.bytes], [files, bytes])
  assert.equal(told.length, 1, 'one report: the next is EVERY files later')
  assert.equal(told[0]?.[0], EVERY, 'objects folded so far')
  assert.ok((told[0]?.[1] ?? 0) >= EVERY && (told[0]?.[1] ?? 0) < bytes)
  const quiet: unknown[] = []
  walkDirectory(
    { dirs: [root], expand: false, isBucketRoot: true, nowMs: Date.now() },
    { progress: (objects) => quiet.push(objects) },
  )
  assert.equal(quiet.length, 0, `none before FILES_PER_PROGRESS (${FILES_PER_PROGRESS}) files`)

  // Through the pool: deltas, the thread's running report, then the rest with the answer.
  const pool = new WalkPool(1, undefined, EVERY)
  t.after(() => pool.close())
  const deltas: Array<[number, number]> = []
  const result = await pool.run(
    { dirs: [root], expand: false, isBucketRoot: true, nowMs: Date.now() },
    new AbortController().signal,
    root,
    (objects, sum) => deltas.push([objects, sum]),
  )
  assert.deepEqual([result.usage.objects, result.usage.bytes], [files, bytes])
  assert.equal(deltas.length, 2, 'the running report, then the rest')
  assert.deepEqual(
    deltas.reduce(([objects, sum], [o, b]) => [objects + o, sum + b], [0, 0]),
    [files, bytes],
  )
  assert.equal(deltas[0]?.[0], EVERY)
})
