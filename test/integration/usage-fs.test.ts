import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { rawGet, startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'
import { type HungMount, mountHungFilesystem } from '../support/hung-mount.js'
import { bytePath, scratchFolder } from '../support/scratch.js'
import { startServingProcess, unexpectedStderr } from '../support/serving-process.js'
import {
  assertAgeBands,
  assertBucketUsage,
  bucketsIn,
  type WrittenObject,
} from '../support/usage-expectations.js'

const T0 = 1_790_000_000

interface TreeObject extends WrittenObject {
  readonly path: string
}

async function writeTree(root: string, objects: readonly TreeObject[]): Promise<void> {
  for (const object of objects) {
    const path = join(root, object.path)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, Buffer.alloc(object.size))
    await utimes(path, object.modifiedSeconds, object.modifiedSeconds)
  }
}

/** A scratch folder (removed after the test) whose `data` folder holds `objects`. */
async function storeWith(
  t: { after: (fn: () => Promise<void>) => void },
  objects: readonly TreeObject[],
): Promise<{ folder: string; data: string }> {
  const folder = await scratchFolder(t, 'objstore-usage-fs-')
  const data = join(folder, 'data')
  await mkdir(data)
  await writeTree(data, objects)
  return { folder, data }
}

/**
 * Bucket "alpha": files at its root and in a dozen folders, some nested three deep, so the walk is
 * split among threads and merged; sizes on both sides of MinIO's and the histogram's bounds.
 */
function alphaObjects(): TreeObject[] {
  const sizes = [0, 1, 1023, 1024, 1025, 4096, 65535, 65536, 70_000, 262_144, 600_000, 1_048_576, 3_000_000]
  const objects: TreeObject[] = []
  sizes.forEach((size, index) => {
    objects.push({ path: `alpha/root-${index}.bin`, size, modifiedSeconds: T0 + index })
  })
  for (let folder = 0; folder < 12; folder++) {
    for (let file = 0; file < 5; file++) {
      const size = (folder * 7919 + file * 104_729) % 300_000
      const depth = folder % 3 === 0 ? 'deep/er/still/' : ''
      objects.push({
        path: `alpha/f${folder}/${depth}o${file}`,
        size,
        modifiedSeconds: T0 - 1000 * folder - file,
      })
    }
  }
  objects.push({ path: 'alpha/.keep', size: 3, modifiedSeconds: T0 + 500 })
  return objects
}

test('fs source: exact bytes, objects, histogram, MinIO ranges and times in a real scrape', async (t) => {
  const alpha = alphaObjects()
  const bravo: TreeObject[] = [
    { path: 'bravo/2026/01/02/dump.sql', size: 12_345_678, modifiedSeconds: T0 + 9 },
  ]
  const { data } = await storeWith(t, [...alpha, ...bravo])
  await mkdir(join(data, 'charlie'))
  // Not buckets: a hidden top-level folder and a top-level file. Not objects: a symbolic link.
  await writeTree(data, [
    { path: '.minio.sys/config.json', size: 100, modifiedSeconds: T0 },
    { path: 'README', size: 10, modifiedSeconds: T0 },
  ])
  await symlink(join(data, 'bravo/2026/01/02/dump.sql'), join(data, 'alpha/link-to-dump'))

  // Every group: the age bands are checked too.
  const exporter = await startExporter({ DATA_DIR: data, SCAN_CONCURRENCY: '3', BUCKET_METRICS: 'all' })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()

  assert.deepEqual(bucketsIn(scrape), ['alpha', 'bravo', 'charlie'])
  assertBucketUsage(scrape, 'alpha', alpha)
  assertBucketUsage(scrape, 'bravo', bravo)
  assertBucketUsage(scrape, 'charlie', [])
  for (const [bucket, objects] of [
    ['alpha', alpha],
    ['bravo', bravo],
    ['charlie', []],
  ] as const) {
    assertAgeBands(scrape, bucket, objects)
  }
  assert.equal(
    findSamples(scrape, 'objstore_bucket_storage_class_bytes').length,
    0,
    'a filesystem has no classes',
  )
  assert.equal(findSamples(scrape, 'objstore_bucket_multipart_uploads_incomplete').length, 0)

  const all = [...alpha, ...bravo]
  assert.equal(sampleValue(scrape, 'objstore_cluster_buckets'), 3)
  assert.equal(
    sampleValue(scrape, 'objstore_cluster_usage_total_bytes'),
    all.reduce((sum, object) => sum + object.size, 0),
  )
  assert.equal(sampleValue(scrape, 'objstore_cluster_usage_objects'), all.length)
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'fs' }), 1)
  for (const bucket of ['alpha', 'bravo', 'charlie']) {
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }), 1)
    assert.ok(sampleValue(scrape, 'objstore_bucket_scan_duration_seconds', { bucket }) >= 0)
    const lastSuccess = sampleValue(scrape, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket })
    assert.ok(Math.abs(lastSuccess - Date.now() / 1000) < 120, 'last success is the scan just made')
  }
  assert.equal(scrape.types.get('objstore_bucket_object_size_bytes'), 'histogram')
  assert.equal((await rawGet(`${exporter.baseUrl}/readyz`)).status, 200)
})

test('a bucket created after a scan appears at the next; a deleted one disappears with all its series', async (t) => {
  const { data } = await storeWith(t, [
    { path: 'keep/a', size: 5, modifiedSeconds: T0 },
    { path: 'doomed/b', size: 7, modifiedSeconds: T0 },
  ])
  const exporter = await startExporter({ DATA_DIR: data, SCAN_INTERVAL_SECONDS: '3600' })
  t.after(() => exporter.close())
  assert.deepEqual(bucketsIn(await exporter.scrape()), ['doomed', 'keep'])

  await rm(join(data, 'doomed'), { recursive: true })
  await writeTree(data, [{ path: 'fresh/c', size: 11, modifiedSeconds: T0 }])
  await exporter.exporter.scanner.scanNow()
  const after = await exporter.scrape()
  assert.deepEqual(bucketsIn(after), ['fresh', 'keep'])
  assert.equal(sampleValue(after, 'objstore_cluster_buckets'), 2)
  assert.equal(sampleValue(after, 'objstore_cluster_usage_total_bytes'), 16)
})

test('BUCKETS_INCLUDE and BUCKETS_EXCLUDE choose the buckets measured', async (t) => {
  const names = ['logs-2026', 'logs-old-2019', 'data-1', 'data-10', 'media']
  const { data } = await storeWith(
    t,
    names.map((name) => ({ path: `${name}/x`, size: 1, modifiedSeconds: T0 })),
  )
  const exporter = await startExporter({
    DATA_DIR: data,
    BUCKETS_INCLUDE: 'logs-*,data-?',
    BUCKETS_EXCLUDE: 'logs-old*',
  })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.deepEqual(bucketsIn(scrape), ['data-1', 'logs-2026'])
  assert.equal(sampleValue(scrape, 'objstore_cluster_buckets'), 2)
})

test('SHARD: three exporters on one store cover every bucket exactly once', async (t) => {
  const names = Array.from({ length: 24 }, (_, index) => `bucket-${String(index).padStart(2, '0')}`)
  const { data } = await storeWith(
    t,
    names.map((name, index) => ({ path: `${name}/object`, size: index + 1, modifiedSeconds: T0 })),
  )
  const seen: string[][] = []
  let objects = 0
  for (const shard of ['0/3', '1/3', '2/3']) {
    const exporter = await startExporter({ DATA_DIR: data, SHARD: shard })
    const scrape = await exporter.scrape()
    await exporter.close()
    seen.push(bucketsIn(scrape))
    objects += sampleValue(scrape, 'objstore_cluster_usage_objects')
  }
  const union = seen.flat()
  assert.equal(union.length, names.length, `a bucket in two shards: ${JSON.stringify(seen)}`)
  assert.deepEqual(union.sort(), names)
  assert.ok(
    seen.every((shard) => shard.length > 0),
    'every shard has work',
  )
  assert.equal(objects, names.length)
})

test('STATE_FILE: a restarted exporter serves the saved figures at once, before any scan', async (t) => {
  const { folder, data } = await storeWith(t, [{ path: 'vault/a', size: 1000, modifiedSeconds: T0 }])
  const stateFile = join(folder, 'usage-state.json')
  const env = { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600' }

  const first = await startExporter(env)
  const before = await first.scrape()
  await first.close()
  assert.equal(sampleValue(before, 'objstore_bucket_usage_total_bytes', { bucket: 'vault' }), 1000)

  // The store changes while the exporter is down; the restarted one answers from the file until it scans.
  await writeTree(data, [{ path: 'vault/b', size: 500, modifiedSeconds: T0 }])
  const second = await startExporter(env)
  t.after(() => second.close())
  assert.equal((await rawGet(`${second.baseUrl}/readyz`)).status, 200, 'ready from the loaded snapshot')
  const restored = await second.scrape()
  for (const name of [
    'objstore_bucket_usage_total_bytes',
    'objstore_bucket_scan_last_success_timestamp_seconds',
  ]) {
    assert.equal(
      sampleValue(restored, name, { bucket: 'vault' }),
      sampleValue(before, name, { bucket: 'vault' }),
    )
  }
  assert.ok(second.logs.messages().includes('usage snapshot loaded from state file'))

  await second.exporter.scanner.scanNow()
  assert.equal(
    sampleValue(await second.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'vault' }),
    1500,
  )
})

test('a corrupt STATE_FILE is reported, ignored, and replaced after the first scan', async (t) => {
  const { folder, data } = await storeWith(t, [{ path: 'vault/a', size: 42, modifiedSeconds: T0 }])
  const stateFile = join(folder, 'usage-state.json')
  await writeFile(stateFile, '{"format":"objstore-exporter/usage-snapshot","version":1,"snap')
  const exporter = await startExporter({ DATA_DIR: data, STATE_FILE: stateFile })
  const ignored = exporter.logs.lines.filter((line) => line.msg === 'state file ignored')
  assert.equal(ignored.length, 1)
  assert.match(String(ignored[0]?.reason), /not valid JSON/)
  assert.equal(ignored[0]?.level, 40, 'a warning, not fatal')
  assert.equal(
    sampleValue(await exporter.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'vault' }),
    42,
  )
  // A restart: the first exporter stops (its scan and state write complete), then a new one starts.
  await exporter.close()
  const restarted = await startExporter({
    DATA_DIR: data,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
  })
  t.after(() => restarted.close())
  assert.ok(
    restarted.logs.messages().includes('usage snapshot loaded from state file'),
    'the file was rewritten whole',
  )
})

test('a missing bucket named in BUCKETS fails alone; the others are measured', async (t) => {
  const { data } = await storeWith(t, [
    { path: 'present/a', size: 9, modifiedSeconds: T0 },
    { path: 'unlisted/a', size: 1, modifiedSeconds: T0 },
  ])
  const exporter = await startExporter({ DATA_DIR: data, BUCKETS: 'present,ghost' })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.deepEqual(bucketsIn(scrape), ['ghost', 'present'])
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'present' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'ghost' }), 0)
  assert.equal(findSamples(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'ghost' }).length, 0)
  assert.equal(
    findSamples(scrape, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket: 'ghost' }).length,
    0,
  )
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'present' }), 9)
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'fs' }), 1)
  const failures = exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed')
  assert.equal(failures.length, 1)
  assert.equal(failures[0]?.bucket, 'ghost')
  assert.equal(failures[0]?.kind, 'missing')
  await exporter.exporter.scanner.scanNow()
  assert.equal(
    exporter.logs.lines.filter((line) => line.msg === 'bucket scan failed').length,
    1,
    'the same failure is not logged again',
  )
})

test('a walk that outlives SCAN_TIMEOUT_SECONDS is stopped and its bucket flagged, the exporter serving on', async (t) => {
  const { data } = await storeWith(t, [{ path: 'slow/a', size: 1, modifiedSeconds: T0 }])
  // A millisecond is less than a walk thread takes to start, so the walk is always cut off. The
  // bucket is named (BUCKETS): listing DATA_DIR has the same bound and would be cut off first.
  const exporter = await startExporter({ DATA_DIR: data, SCAN_TIMEOUT_SECONDS: '0.001', BUCKETS: 'slow' })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'slow' }), 0)
  assert.equal(findSamples(scrape, 'objstore_bucket_usage_total_bytes').length, 0)
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'fs' }), 0, 'nothing was measured')
  await exporter.exporter.scanner.scanNow()
  assert.equal(sampleValue(await exporter.scrape(), 'objstore_bucket_scan_success', { bucket: 'slow' }), 0)
})

test('scans repeat by themselves every SCAN_INTERVAL_SECONDS, one at a time', async (t) => {
  const { data } = await storeWith(t, [{ path: 'growing/a', size: 1, modifiedSeconds: T0 }])
  const exporter = await startExporter({ DATA_DIR: data, SCAN_INTERVAL_SECONDS: '1' })
  t.after(() => exporter.close())
  const { scanner } = exporter.exporter
  const first = scanner.snapshot
  const concurrent = [scanner.scanNow(), scanner.scanNow()]
  assert.equal(concurrent[0], concurrent[1], 'a second request joins the scan running')
  await Promise.all(concurrent)

  await writeTree(data, [{ path: 'growing/b', size: 2, modifiedSeconds: T0 }])
  // No scanNow from here on: only the schedule can bring the new file in.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('no scheduled scan saw the new file within 15 s')),
      15_000,
    )
    const stop = scanner.onSnapshot((snapshot) => {
      if (snapshot.buckets.find((record) => record.name === 'growing')?.usage?.bytes !== 3) return
      clearTimeout(timer)
      stop()
      resolve()
    })
  })
  assert.notEqual(scanner.snapshot, first)
  assert.equal(
    sampleValue(await exporter.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'growing' }),
    3,
  )
})

test('fs source on a real tree: non-UTF-8 names, a path over PATH_MAX, lost+found', async (t) => {
  // A folder too deep for a path (PATH_MAX 4,096 bytes): not removable by fs.rm, so rm -rf cleans up.
  const folder = await mkdtemp(join(tmpdir(), 'objstore-usage-fs-'))
  t.after(() => void execFileSync('rm', ['-rf', '--', folder]))
  const data = join(folder, 'data')
  const at = (...parts: (string | number[])[]) => bytePath(data, ...parts)
  mkdirSync(data)
  // Two bucket folders whose names differ in one byte that is not UTF-8: two buckets, not one U+FFFD.
  mkdirSync(at([0x62, 0x6b, 0x80]))
  writeFileSync(at([0x62, 0x6b, 0x80], 'a'), Buffer.alloc(11))
  mkdirSync(at([0x62, 0x6b, 0xff]))
  writeFileSync(at([0x62, 0x6b, 0xff], 'a'), Buffer.alloc(13))
  // Inside a bucket: a file and a folder whose names are not UTF-8 are objects like any other.
  mkdirSync(at('names'))
  writeFileSync(at('names', [0xfe, 0x41]), Buffer.alloc(7))
  mkdirSync(at('names', [0xc3, 0x28]))
  writeFileSync(at('names', [0xc3, 0x28], 'b'), Buffer.alloc(5))
  // A bucket with one chain of folders deeper than PATH_MAX: the rest of it is measured.
  await writeTree(data, [
    { path: 'deep/top', size: 100, modifiedSeconds: T0 },
    { path: 'deep/side/x', size: 20, modifiedSeconds: T0 },
  ])
  const level = 'd'.repeat(250)
  execFileSync('bash', [
    '-c',
    `cd "$1" && for i in $(seq 20); do mkdir ${level} && cd ${level} || exit 1; done && printf lost > file`,
    'bash',
    join(data, 'deep'),
  ])
  // fsck's folder at the root of an ext filesystem is not a bucket.
  await writeTree(data, [{ path: 'lost+found/#1234', size: 9, modifiedSeconds: T0 }])

  const stateFile = join(folder, 'state.json')
  const exporter = await startExporter({ DATA_DIR: data, STATE_FILE: stateFile })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  assert.deepEqual(bucketsIn(scrape), ['bk\\x80', 'bk\\xff', 'deep', 'names'])
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'bk\\x80' }), 11)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'bk\\xff' }), 13)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'names' }), 12)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'names' }), 2)
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'deep' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'deep' }), 120)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'deep' }), 2)
  // The one folder of the chain whose path is too long, and nothing below it, which was never seen.
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_unreadable_entries', { bucket: 'deep' }), 1)
  for (const bucket of ['bk\\x80', 'bk\\xff', 'names']) {
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_unreadable_entries', { bucket }), 0)
  }
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'fs' }), 1)
  // A label names its folder again: BUCKETS takes it.
  const named = await startExporter({ DATA_DIR: data, BUCKETS: 'bk\\xff' })
  t.after(() => named.close())
  const only = await named.scrape()
  assert.deepEqual(bucketsIn(only), ['bk\\xff'])
  assert.equal(sampleValue(only, 'objstore_bucket_usage_total_bytes', { bucket: 'bk\\xff' }), 13)
  // The state file keeps labels and counts: a restart serves them before it scans.
  await exporter.close()
  const restarted = await startExporter({
    DATA_DIR: data,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
  })
  t.after(() => restarted.close())
  assert.ok(restarted.logs.messages().includes('usage snapshot loaded from state file'))
  const restored = await restarted.scrape()
  assert.deepEqual(bucketsIn(restored), ['bk\\x80', 'bk\\xff', 'deep', 'names'])
  assert.equal(sampleValue(restored, 'objstore_bucket_scan_unreadable_entries', { bucket: 'deep' }), 1)
})

/** The threads of process `pid` now (Linux). */
const threadsOf = (pid: number) =>
  Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])

test('a hung filesystem inside DATA_DIR: its bucket times out, scans and scrapes go on, stuck threads do not pile up', async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'objstore-usage-fs-'))
  const data = join(folder, 'data')
  await writeTree(data, [
    { path: 'good/a', size: 5, modifiedSeconds: T0 },
    { path: 'nfs/local', size: 3, modifiedSeconds: T0 },
  ])
  const share = join(data, 'nfs', 'share')
  await mkdir(share)
  // Released before the folder is removed: removing a tree with a hung mount in it would hang.
  const mounts: HungMount[] = []
  t.after(async () => {
    for (const mount of mounts) await mount.release()
    await rm(folder, { recursive: true, force: true })
  })
  const hung = await mountHungFilesystem(share)
  if (typeof hung === 'string') {
    // A machine without /dev/fuse cannot have it installed by CI; one with it must mount.
    if (process.env.CI && !hung.startsWith('no /dev/fuse'))
      throw new Error(`CI must be able to mount a FUSE filesystem: ${hung}`)
    return t.skip(hung)
  }
  mounts.push(hung)
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, SCAN_INTERVAL_SECONDS: '1', SCAN_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'debug' },
    folder,
  )
  const pid = exporter.process.child.pid as number
  const scans = () => exporter.logs().filter((line) => line.msg === 'usage scan finished').length
  const [failure] = await exporter.waitForLogs(
    'the hung bucket to fail',
    (line) => line.msg === 'bucket scan failed' && line.bucket === 'nfs',
  )
  assert.match(String(failure?.error), /SCAN_TIMEOUT_SECONDS \(2 s\)/)
  // Logged as the scan records the bucket; served once that scan (the first) has finished.
  await exporter.waitForLogs('the first scan to finish', (line) => line.msg === 'usage scan finished')
  const during = await exporter.scrape()
  assert.equal(sampleValue(during, 'objstore_bucket_scan_success', { bucket: 'nfs' }), 0)
  assert.equal(sampleValue(during, 'objstore_bucket_scan_success', { bucket: 'good' }), 1)
  assert.equal(sampleValue(during, 'objstore_bucket_usage_total_bytes', { bucket: 'good' }), 5)
  assert.equal(sampleValue(during, 'objstore_source_up', { source: 'fs' }), 1)

  // Later scans: the other bucket is measured afresh, scrapes answer, and a scan that meets the
  // hung folder again does not leave one more thread behind in the kernel each time.
  await exporter.waitForLogs('a scan after the failure', (line) => line.msg === 'usage scan finished')
  const threadsBefore = threadsOf(pid)
  const from = scans()
  await writeTree(data, [{ path: 'good/b', size: 7, modifiedSeconds: T0 }])
  await exporter.waitForLogs('six more scans', (line) => line.msg === 'usage scan finished', from + 6, 60_000)
  const after = await exporter.scrape()
  assert.equal(sampleValue(after, 'objstore_bucket_usage_total_bytes', { bucket: 'good' }), 12)
  assert.equal(sampleValue(after, 'objstore_bucket_scan_success', { bucket: 'nfs' }), 0)
  const threadsAfter = threadsOf(pid)
  // Unbounded, six scans would leave six more stuck threads; a scan's own walk threads come and go.
  assert.ok(threadsAfter - threadsBefore < 3, `threads ${threadsBefore} -> ${threadsAfter}`)

  // The server comes back (here: the connection is cut, so the folder answers ENOTCONN): the stuck
  // thread returns, the bucket is measured again, the folder counted as unreadable.
  await hung.release()
  // Logged as the scan records it, published when that scan finishes (or, if counted already, the next).
  await exporter.waitForLogs(
    'the bucket recovering',
    (line) => line.msg === 'bucket scan recovered' && line.bucket === 'nfs',
    1,
    60_000,
  )
  await exporter.waitForLogs(
    'the scan that recovered it to finish',
    (line) => line.msg === 'usage scan finished',
    scans() + 1,
  )
  const recovered = await exporter.scrape()
  assert.equal(sampleValue(recovered, 'objstore_bucket_scan_success', { bucket: 'nfs' }), 1)
  assert.equal(sampleValue(recovered, 'objstore_bucket_usage_total_bytes', { bucket: 'nfs' }), 3)

  // Hung again, and the exporter told to stop: Node joins every thread at exit, and the stuck one
  // never returns, so the process ends by the signal it was sent instead of hanging until killed.
  const again = await mountHungFilesystem(share)
  assert.equal(typeof again, 'object', String(again))
  if (typeof again === 'string') return
  mounts.push(again)
  const failures = exporter.logs().filter((line) => line.msg === 'bucket scan failed').length
  await exporter.waitForLogs(
    'the bucket failing again',
    (line) => line.msg === 'bucket scan failed',
    failures + 1,
  )
  exporter.process.kill('SIGTERM')
  const ended = await Promise.race([exporter.process.exited, sleep(20_000).then(() => 'still running')])
  assert.equal(ended, 'SIGTERM', `the process ${ended}: ${exporter.process.stderr()}`)
  const last = exporter
    .logs()
    .find((line) => line.msg === 'walk threads stuck in the filesystem; ending by signal')
  assert.equal(last?.stuck, 1)
  assert.equal(unexpectedStderr(exporter.process.stderr()), '')
})
