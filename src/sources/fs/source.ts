import { setMaxListeners } from 'node:events'
import { lstat, opendir, readdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import type { Logger } from 'pino'
import { Slices } from '../../event-loop-slices.js'
import type { PrefixSettings } from '../../figures/prefixes/labels.js'
import { withTopPrefixes } from '../../record/bucket-usage.js'
import { mergeUsage } from '../../record/usage-sums.js'
import { linkedAbort } from '../linked-abort.js'
import type { ListingProgress } from '../types.js'
import { type BucketUsage, type ScanRound, SourceError, type UsageSource } from '../types.js'
import { toSourceError } from './errors.js'
import { bucketFolder, bucketLabel } from './names.js'
import { stuckWalkFor } from './stuck-walks.js'
import { pathBytes, type WalkResult, type WalkTask } from './walk.js'
import { WalkPool } from './walk-pool.js'

export interface FsSourceOptions {
  /** DATA_DIR: one folder per bucket. */
  readonly dataDir: string
  /** Worker threads walking at once (SCAN_CONCURRENCY), at most one per core. */
  readonly threads: number
  /** PREFIX_*: bytes per folder at PREFIX_DEPTH; undefined when off. */
  readonly prefixes?: PrefixSettings | undefined
  /** The `age` group: bytes and files per mtime age band (default true). */
  readonly ages?: boolean
  /** Told once, at the first walk, which walk runs (native or JavaScript, and why). */
  readonly logger?: Pick<Logger, 'info'>
}

/**
 * Expanding a folder (folding its files, handing its subfolders out as separate tasks) stops at
 * this depth below the bucket, or earlier once a level has enough folders to make TASKS_PER_THREAD.
 */
const MAX_EXPAND_DEPTH = 2
/**
 * Folders handed out are grouped into this many tasks per thread. A scan ends when its last task
 * does, and meanwhile the other threads idle: with two tasks per thread, 200,000 files in six
 * year folders left one of two threads idle a fifth of the walk. Eight even it out, and a task
 * (a message each way, ~0.1 ms) stays cheap beside the thousands of files each walks.
 */
const TASKS_PER_THREAD = 4

/**
 * The tasks for the subfolders a task handed back. Too few folders near the top to make
 * TASKS_PER_THREAD are expanded one by one (a bucket with one folder per year still spreads over
 * every thread); more are dealt round robin into that many whole-walk tasks.
 */
export function splitFolders(
  subdirs: readonly string[],
  depth: number,
  threads: number,
  bucket: BucketContext,
): WalkTask[] {
  if (subdirs.length === 0) return []
  if (depth < MAX_EXPAND_DEPTH && subdirs.length < threads * TASKS_PER_THREAD) {
    return subdirs.map((dir) => ({ dirs: [dir], expand: true, isBucketRoot: false, ...bucket }))
  }
  const groups = Array.from(
    { length: Math.min(subdirs.length, threads * TASKS_PER_THREAD) },
    () => [] as string[],
  )
  subdirs.forEach((dir, index) => {
    groups[index % groups.length]?.push(dir)
  })
  return groups.map((dirs) => ({ dirs, expand: false, isBucketRoot: false, ...bucket }))
}

/** What every task of one bucket's walk carries: its folder and the prefix settings, when on; the folds. */
export type BucketContext = Pick<WalkTask, 'root' | 'prefixes' | 'nowMs' | 'ages'>

/**
 * The embedded default source: DATA_DIR holds one folder per bucket, and every regular file below
 * a bucket's folder is an object. Hidden top-level folders (`.minio.sys`, `.trash`) and
 * `lost+found` (fsck's folder at the root of an ext filesystem) are not buckets. A folder name that
 * is not valid UTF-8 is labelled by bucketLabel(). Walks run on worker threads; one bucket's
 * folders are shared among the threads, so a single large bucket uses them all.
 */
export function createFsSource(options: FsSourceOptions): UsageSource {
  const dataDir = resolve(options.dataDir)
  let walkerLogged = false
  // Made at the first scan and kept: its threads serve every round and end when the source closes.
  let pool: WalkPool | undefined
  const onWalker = (walker: string) => {
    if (walkerLogged) return
    walkerLogged = true
    options.logger?.info(`fs walk: ${walker}`)
  }
  return {
    name: 'fs',
    id: `fs:${dataDir}`,
    async beginScan({ fixedBuckets, startedMs }): Promise<ScanRound> {
      const nowMs = startedMs ?? Date.now()
      const buckets = fixedBuckets ?? (await listBucketFolders(dataDir))
      // A walk over a warm cache is CPU-bound: threads beyond the cores only contend.
      pool ??= new WalkPool(Math.min(options.threads, availableParallelism()), onWalker)
      const walks = pool
      return {
        buckets,
        measure: async (bucket, signal, _slots, progress) => {
          const usage = await measureBucket(walks, dataDir, bucket, signal, {
            nowMs,
            ages: options.ages ?? true,
            prefixes: options.prefixes,
            progress,
          })
          return options.prefixes ? withTopPrefixes(usage, options.prefixes.topK) : usage
        },
        outsideBuckets: (signal) => measureOutsideBuckets(walks, dataDir, signal),
      }
    },
    async close() {
      await pool?.close()
      pool = undefined
    },
  }
}

/** Folders at DATA_DIR's root that are never buckets, besides hidden ones. */
const NOT_BUCKETS = new Set(['lost+found'])

/**
 * DATA_DIR's bucket folders, read a batch of entries at a time and labelled in slices: read whole
 * and labelled in one go, 10,000 folders held the event loop 26 ms (a CPU profile of a
 * publication), 100,000 some ten times that. In the folder's order: the round sorts the names.
 */
async function listBucketFolders(dataDir: string): Promise<string[]> {
  const names: string[] = []
  const slices = new Slices()
  try {
    const folder = await opendir(dataDir, { encoding: 'buffer' as BufferEncoding, bufferSize: 1024 })
    for await (const entry of folder) {
      const name = entry.name as unknown as Buffer
      if (entry.isDirectory() && name[0] !== DOT) {
        const label = bucketLabel(name)
        if (!NOT_BUCKETS.has(label)) names.push(label)
      }
      if (slices.due) await slices.next()
    }
  } catch (error) {
    throw toSourceError(error, `cannot list ${dataDir}`)
  }
  return names
}

const DOT = 0x2e

/**
 * Bytes of the regular files under DATA_DIR that are in no bucket's folder: hidden folders
 * (`.minio.sys`, `.trash`), lost+found, files at the top. Walked like a bucket, on the pool.
 */
async function measureOutsideBuckets(pool: WalkPool, dataDir: string, signal: AbortSignal): Promise<number> {
  const root = Buffer.from(dataDir, 'utf8').toString('latin1')
  let bytes = 0
  const dirs: string[] = []
  try {
    for (const entry of await readdir(dataDir, { withFileTypes: true, encoding: 'buffer' })) {
      if (entry.isDirectory() && entry.name[0] !== DOT && !NOT_BUCKETS.has(bucketLabel(entry.name))) continue
      const path = `${root}/${Buffer.from(entry.name).toString('latin1')}`
      if (entry.isDirectory()) dirs.push(path)
      else if (entry.isFile()) bytes += (await lstat(pathBytes(path)).catch(() => undefined))?.size ?? 0
    }
    if (dirs.length > 0)
      bytes += (
        await pool.run(
          { dirs, expand: false, isBucketRoot: false, nowMs: Date.now(), ages: false },
          signal,
          root,
        )
      ).usage.bytes
  } catch (error) {
    if (signal.aborted) throw signal.reason
    throw toSourceError(error, `cannot measure ${dataDir} outside its buckets`)
  }
  return bytes
}

export { bucketFolder, bucketLabel }

async function measureBucket(
  pool: WalkPool,
  dataDir: string,
  bucket: string,
  signal: AbortSignal,
  folds: {
    readonly nowMs: number
    readonly ages: boolean
    readonly prefixes: PrefixSettings | undefined
    /** Told each task's objects and bytes as its thread walks (the round's progress). */
    readonly progress: ListingProgress | undefined
  },
): Promise<BucketUsage> {
  const { nowMs, ages, prefixes, progress } = folds
  const told = progress && ((objects: number, bytes: number) => progress.listed(objects, bytes))
  const folder = bucketFolder(bucket)
  if (
    folder.length === 0 ||
    folder.equals(DOT_NAME) ||
    folder.equals(DOT_DOT_NAME) ||
    folder.includes(SLASH) ||
    folder.includes(0)
  ) {
    throw new SourceError(`"${bucket}" is not a bucket folder name`, 'missing')
  }
  // Byte strings (see WalkTask): the folder's name exactly, whatever its encoding.
  const dir = `${Buffer.from(dataDir, 'utf8').toString('latin1')}/${folder.toString('latin1')}`
  // A walk that met a hung filesystem holds its thread until the filesystem answers: another walk
  // of the same folder would only leave one more thread behind.
  const stuck = stuckWalkFor(dir)
  if (stuck) throw new SourceError(`cannot walk bucket folder ${bucket}: ${stuck}`, 'failed')
  const fail = (error: unknown): never => {
    if (signal.aborted) throw signal.reason
    throw toSourceError(error, `cannot walk bucket folder ${bucket}`)
  }
  const context: BucketContext = prefixes ? { root: dir, prefixes, nowMs, ages } : { nowMs, ages }
  let root: WalkResult
  try {
    root = await pool.run({ dirs: [dir], expand: true, isBucketRoot: true, ...context }, signal, dir, told)
  } catch (error) {
    return fail(error)
  }
  const first = splitFolders(root.subdirs, 0, pool.size, context)
  if (first.length === 0) return { ...root.usage, unreadableEntries: root.unreadable }
  // One failing part ends the bucket: its other parts stop instead of walking on for nothing. (Made
  // only for buckets with parts: a scan of many small buckets makes no controller per bucket.)
  const abort = linkedAbort(signal)
  const stop = abort.signal
  // Every queued part of the bucket listens to it; a large bucket has many parts.
  setMaxListeners(0, stop)
  let unreadable = root.unreadable
  const walk = async (task: WalkTask, depth: number): Promise<BucketUsage> => {
    const result = await pool.run(task, stop, dir, told)
    unreadable += result.unreadable
    const parts = await Promise.all(
      splitFolders(result.subdirs, depth, pool.size, context).map((next) => walk(next, depth + 1)),
    )
    return parts.reduce(mergeUsage, result.usage)
  }
  try {
    const parts = await Promise.all(first.map((task) => walk(task, 1)))
    return { ...parts.reduce(mergeUsage, root.usage), unreadableEntries: unreadable }
  } catch (error) {
    abort.controller.abort(error)
    return fail(error)
  } finally {
    abort.dispose()
  }
}

const DOT_NAME = Buffer.from('.')
const DOT_DOT_NAME = Buffer.from('..')
const SLASH = 0x2f
