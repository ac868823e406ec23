import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdir, utimes, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { createFsSource, splitFolders } from '../../src/sources/fs/source.js'
import { settleStuckWalks } from '../../src/sources/fs/stuck-walks.js'
import { WalkPool } from '../../src/sources/fs/walk-pool.js'
import { workerThreadCounts } from '../../src/worker-threads.js'
import { scratchFolder } from '../support/scratch.js'

const DAY_MS = 86_400_000
const NOW_MS = Date.UTC(2026, 0, 1)

test('folders too few to keep every thread busy are expanded one by one; many are dealt into tasks', () => {
  const context = { nowMs: NOW_MS }
  const years = Array.from({ length: 6 }, (_, index) => `/data/big/${2020 + index}`)
  // Six folders for two threads: each is expanded on its own, so its hundred day folders are dealt
  // out in turn, instead of six whole-year tasks of which the last leaves a thread idle.
  const first = splitFolders(years, 0, 2, context)
  assert.deepEqual(
    first.map((task) => [task.dirs, task.expand]),
    years.map((year) => [[year], true]),
  )
  const days = Array.from({ length: 100 }, (_, index) => `/data/big/2020/day-${index}`)
  const dealt = splitFolders(days, 1, 2, context)
  assert.equal(dealt.length, 8)
  assert.ok(dealt.every((task) => !task.expand && task.dirs.length >= 12 && task.dirs.length <= 13))
  assert.deepEqual(dealt.flatMap((task) => task.dirs).sort(), [...days].sort())
  // Expanding stops two levels below the bucket, however few folders there are.
  assert.deepEqual(
    splitFolders(years.slice(0, 3), 2, 2, context).map((task) => task.expand),
    [false, false, false],
  )
  assert.deepEqual(splitFolders([], 0, 2, context), [])
})

test('a bucket walked by two threads has the figures one thread folds, prefixes and ages included', async (t) => {
  const dataDir = await scratchFolder(t, 'objstore-split-')
  // Uneven on purpose: a few wide folders, a deep narrow branch, files at every level.
  let files = 0
  const write = async (path: string) => {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, Buffer.alloc((files * 977) % 70_000))
    const then = new Date(NOW_MS - (files % 400) * DAY_MS - 1000)
    await utimes(path, then, then)
    files++
  }
  await write(join(dataDir, 'bucket', 'top-file'))
  for (let year = 0; year < 3; year++) {
    await write(join(dataDir, 'bucket', `${2020 + year}`, 'summary'))
    for (let day = 0; day < 20; day++) {
      for (let index = 0; index < (day % 5) * 3 + 1; index++) {
        await write(join(dataDir, 'bucket', `${2020 + year}`, `day-${day}`, `object-${index}`))
      }
    }
  }
  for (let depth = 1; depth <= 6; depth++) {
    await write(
      join(dataDir, 'bucket', 'deep', ...Array.from({ length: depth }, (_, at) => `d${at}`), 'leaf'),
    )
  }
  const measure = async (threads: number) => {
    const source = createFsSource({ dataDir, threads, prefixes: { depth: 2, delimiter: '/', topK: 100 } })
    const round = await source.beginScan({ startedMs: NOW_MS, signal: new AbortController().signal })
    try {
      return await round.measure('bucket', new AbortController().signal)
    } finally {
      await round.close?.()
    }
  }
  const one = await measure(1)
  const two = await measure(2)
  assert.equal(one.objects, files)
  assert.deepEqual(two, one)
})

/**
 * The modules a file loads when it runs, following relative imports: its TypeScript as compiled
 * (type-only imports are gone), so what a worker thread pays to start.
 */
function runtimeImports(entry: string): { modules: string[]; packages: Set<string> } {
  const modules: string[] = []
  const packages = new Set<string>()
  const pending = [entry]
  while (pending.length > 0) {
    const file = pending.pop() as string
    if (modules.includes(file)) continue
    modules.push(file)
    const compiled = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        verbatimModuleSyntax: true,
      },
    }).outputText
    for (const [, specifier] of compiled.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      if (!specifier) continue
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
      else packages.add(specifier)
    }
  }
  return { modules, packages }
}

test('a walk thread loads no package: starting one costs ~40 ms of CPU, not the ~170 ms TypeBox adds', () => {
  const entry = fileURLToPath(new URL('../../src/sources/fs/walk-worker.ts', import.meta.url))
  const { modules, packages } = runtimeImports(entry)
  const root = fileURLToPath(new URL('../..', import.meta.url))
  // The walk and its fold; the record's schema (TypeBox) stays out (bucket-usage-schema.ts).
  assert.ok(modules.some((file) => file.endsWith('record/bucket-usage.ts')))
  assert.ok(!modules.some((file) => file.endsWith('bucket-usage-schema.ts')), relative(root, modules.join()))
  assert.deepEqual(
    [...packages].filter((name) => !name.startsWith('node:')),
    [],
    `the walk threads load ${modules.map((file) => relative(root, file)).join(', ')}`,
  )
})

test('a task posted behind a running one and aborted: it is skipped, the running one goes on, no thread is started', async (t) => {
  const root = await scratchFolder(t, 'objstore-pool-')
  for (let folder = 0; folder < 20; folder++) {
    await mkdir(join(root, `f${folder}`))
    for (let index = 0; index < 50; index++) await writeFile(join(root, `f${folder}`, `o${index}`), 'x')
  }
  const started = () => workerThreadCounts().get('walk-worker')?.started ?? 0
  const before = started()
  const pool = new WalkPool(1)
  t.after(() => pool.close())
  const task = { dirs: [root], expand: false, isBucketRoot: true, nowMs: NOW_MS }
  // One thread: the second task of the same owner waits in its port while the first runs.
  const running = pool.run(task, new AbortController().signal, 'bucket')
  const aborted = new AbortController()
  const posted = pool.run(task, aborted.signal, 'bucket')
  const third = pool.run(task, new AbortController().signal, 'other')
  aborted.abort(new Error('bucket timed out'))
  await assert.rejects(posted, /bucket timed out/)
  const [first, last] = await Promise.all([running, third])
  assert.equal(first.usage.objects, 1000)
  assert.equal(last.usage.objects, 1000)
  // Stopped through shared memory, not terminated: the pool's one thread ran all three.
  assert.equal(started() - before, 1, 'walk threads started')
  assert.equal(await settleStuckWalks(5000), 0)
})
