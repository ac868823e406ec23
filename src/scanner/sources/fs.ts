import { setMaxListeners } from 'node:events'
import { readdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { WalkTask } from '../fs-walk.js'
import { mergeUsage } from '../usage-fold.js'
import { WalkError, WalkPool } from '../walk-pool.js'
import { type BucketUsage, type FailureKind, type ScanRound, SourceError, type UsageSource } from './types.js'

export interface FsSourceOptions {
  /** DATA_DIR: one folder per bucket. */
  readonly dataDir: string
  /** Worker threads walking at once (SCAN_CONCURRENCY). */
  readonly threads: number
}

/**
 * Expanding a folder (folding its files, handing its subfolders out as separate tasks) stops at
 * this depth below the bucket, or earlier once a level has enough folders to keep every thread busy.
 */
const MAX_EXPAND_DEPTH = 2

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
      const pool = new WalkPool(options.threads)
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
  // One failing part ends the bucket: its other parts stop instead of walking on for nothing.
  const controller = new AbortController()
  const stop = AbortSignal.any([signal, controller.signal])
  // Every queued part of the bucket listens to it; a large bucket has many parts.
  setMaxListeners(0, stop)
  const walk = async (task: WalkTask, depth: number): Promise<BucketUsage> => {
    const { usage, subdirs } = await pool.run(task, stop)
    const expand = depth < MAX_EXPAND_DEPTH && subdirs.length < pool.size
    const parts = await Promise.all(
      subdirs.map((dir) => walk({ dir, expand, isBucketRoot: false }, depth + 1)),
    )
    return parts.reduce(mergeUsage, usage)
  }
  try {
    return await walk({ dir: `${dataDir}/${bucket}`, expand: true, isBucketRoot: true }, 0)
  } catch (error) {
    controller.abort(error)
    if (signal.aborted) throw signal.reason
    throw toSourceError(error, `cannot walk bucket folder ${bucket}`)
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
