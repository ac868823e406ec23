import { setMaxListeners } from 'node:events'
import { readdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import type { WalkResult, WalkTask } from '../fs-walk.js'
import { linkedAbort } from '../linked-abort.js'
import { mergeUsage } from '../usage-fold.js'
import { WalkError, WalkPool } from '../walk-pool.js'
import { type BucketUsage, type FailureKind, type ScanRound, SourceError, type UsageSource } from './types.js'

export interface FsSourceOptions {
  /** DATA_DIR: one folder per bucket. */
  readonly dataDir: string
  /** Worker threads walking at once (SCAN_CONCURRENCY), at most one per core. */
  readonly threads: number
}

/**
 * Expanding a folder (folding its files, handing its subfolders out as separate tasks) stops at
 * this depth below the bucket, or earlier once a level has enough folders to keep every thread busy.
 */
const MAX_EXPAND_DEPTH = 2
/** Folders handed out are grouped into this many tasks per thread: enough to even out, few enough to be cheap. */
const TASKS_PER_THREAD = 2

/**
 * The tasks for the subfolders a task handed back. Few folders near the top are expanded one by
 * one (a bucket with one folder per year still spreads over every thread); many are dealt round
 * robin into a few whole-walk tasks, since each task costs a message each way.
 */
function splitFolders(subdirs: readonly string[], depth: number, threads: number): WalkTask[] {
  if (subdirs.length === 0) return []
  if (depth < MAX_EXPAND_DEPTH && subdirs.length < threads) {
    return subdirs.map((dir) => ({ dirs: [dir], expand: true, isBucketRoot: false }))
  }
  const groups = Array.from(
    { length: Math.min(subdirs.length, threads * TASKS_PER_THREAD) },
    () => [] as string[],
  )
  subdirs.forEach((dir, index) => {
    groups[index % groups.length]?.push(dir)
  })
  return groups.map((dirs) => ({ dirs, expand: false, isBucketRoot: false }))
}

/**
 * The embedded default source: DATA_DIR holds one folder per bucket, and every regular file below
 * a bucket's folder is an object. Hidden top-level folders (`.minio.sys`, `.trash`) are not
 * buckets. Walks run on worker threads; one bucket's folders are shared among the threads, so a
 * single large bucket uses them all.
 */
export function createFsSource(options: FsSourceOptions): UsageSource {
  const dataDir = resolve(options.dataDir)
  return {
    name: 'fs',
    id: `fs:${dataDir}`,
    async beginScan({ fixedBuckets }): Promise<ScanRound> {
      const buckets = fixedBuckets ?? (await listBucketFolders(dataDir))
      // A walk over a warm cache is CPU-bound: threads beyond the cores only contend (and each
      // costs a start and ~9 MB while it lives, so they are started per scan and ended after it).
      const pool = new WalkPool(Math.min(options.threads, availableParallelism()))
      return {
        buckets,
        measure: (bucket, signal) => measureBucket(pool, dataDir, bucket, signal),
        close: () => pool.close(),
      }
    },
    async close() {},
  }
}

async function listBucketFolders(dataDir: string): Promise<string[]> {
  try {
    const entries = await readdir(dataDir, { withFileTypes: true })
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
  } catch (error) {
    throw toSourceError(error, `cannot list ${dataDir}`)
  }
}

async function measureBucket(
  pool: WalkPool,
  dataDir: string,
  bucket: string,
  signal: AbortSignal,
): Promise<BucketUsage> {
  if (bucket === '.' || bucket === '..' || bucket.includes('/') || bucket.includes('\0')) {
    throw new SourceError(`"${bucket}" is not a bucket folder name`, 'missing')
  }
  const fail = (error: unknown): never => {
    if (signal.aborted) throw signal.reason
    throw toSourceError(error, `cannot walk bucket folder ${bucket}`)
  }
  let root: WalkResult
  try {
    root = await pool.run({ dirs: [`${dataDir}/${bucket}`], expand: true, isBucketRoot: true }, signal)
  } catch (error) {
    return fail(error)
  }
  const first = splitFolders(root.subdirs, 0, pool.size)
  if (first.length === 0) return root.usage
  // One failing part ends the bucket: its other parts stop instead of walking on for nothing. (Made
  // only for buckets with parts: a scan of many small buckets makes no controller per bucket.)
  const abort = linkedAbort(signal)
  const stop = abort.signal
  // Every queued part of the bucket listens to it; a large bucket has many parts.
  setMaxListeners(0, stop)
  const walk = async (task: WalkTask, depth: number): Promise<BucketUsage> => {
    const { usage, subdirs } = await pool.run(task, stop)
    const parts = await Promise.all(
      splitFolders(subdirs, depth, pool.size).map((next) => walk(next, depth + 1)),
    )
    return parts.reduce(mergeUsage, usage)
  }
  try {
    const parts = await Promise.all(first.map((task) => walk(task, 1)))
    return parts.reduce(mergeUsage, root.usage)
  } catch (error) {
    abort.controller.abort(error)
    return fail(error)
  } finally {
    abort.dispose()
  }
}

function toSourceError(error: unknown, context: string): SourceError {
  const code = error instanceof WalkError ? error.code : (error as NodeJS.ErrnoException).code
  const kinds: Record<string, FailureKind> = {
    ENOENT: 'missing',
    ENOTDIR: 'missing',
    EACCES: 'denied',
    EPERM: 'denied',
  }
  const message = error instanceof Error ? error.message : String(error)
  return new SourceError(`${context}: ${message}`, kinds[code ?? ''] ?? 'failed', { cause: error })
}
