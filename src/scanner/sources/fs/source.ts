import { isUtf8 } from 'node:buffer'
import { setMaxListeners } from 'node:events'
import { readdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { mergeUsage } from '../../bucket-usage.js'
import { linkedAbort } from '../../linked-abort.js'
import { type BucketUsage, type ScanRound, SourceError, type UsageSource } from '../types.js'
import { toSourceError } from './errors.js'
import type { WalkResult, WalkTask } from './walk.js'
import { stuckWalkFor, WalkPool } from './walk-pool.js'

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
function splitFolders(
  parent: WalkTask,
  subdirs: readonly string[],
  depth: number,
  threads: number,
): WalkTask[] {
  if (subdirs.length === 0) return []
  if (depth < MAX_EXPAND_DEPTH && subdirs.length < threads) {
    return subdirs.map((dir) => ({ dirs: [dir], expand: true, isBucketRoot: false, nowMs: parent.nowMs }))
  }
  const groups = Array.from(
    { length: Math.min(subdirs.length, threads * TASKS_PER_THREAD) },
    () => [] as string[],
  )
  subdirs.forEach((dir, index) => {
    groups[index % groups.length]?.push(dir)
  })
  return groups.map((dirs) => ({ dirs, expand: false, isBucketRoot: false, nowMs: parent.nowMs }))
}

/**
 * The embedded default source: DATA_DIR holds one folder per bucket, and every regular file below
 * a bucket's folder is an object. Hidden top-level folders (`.minio.sys`, `.trash`) and
 * `lost+found` (fsck's folder at the root of an ext filesystem) are not buckets. A folder name that
 * is not valid UTF-8 is labelled by bucketLabel(). Walks run on worker threads; one bucket's
 * folders are shared among the threads, so a single large bucket uses them all.
 */
export function createFsSource(options: FsSourceOptions): UsageSource {
  const dataDir = resolve(options.dataDir)
  return {
    name: 'fs',
    id: `fs:${dataDir}`,
    async beginScan({ fixedBuckets, startedMs }): Promise<ScanRound> {
      const nowMs = startedMs ?? Date.now()
      const buckets = fixedBuckets ?? (await listBucketFolders(dataDir))
      // A walk over a warm cache is CPU-bound: threads beyond the cores only contend (and each
      // costs a start and ~9 MB while it lives, so they are started per scan and ended after it).
      const pool = new WalkPool(Math.min(options.threads, availableParallelism()))
      return {
        buckets,
        measure: (bucket, signal) => measureBucket(pool, dataDir, bucket, signal, nowMs),
        close: () => pool.close(),
      }
    },
    async close() {},
  }
}

/** Folders at DATA_DIR's root that are never buckets, besides hidden ones. */
const NOT_BUCKETS = new Set(['lost+found'])

async function listBucketFolders(dataDir: string): Promise<string[]> {
  try {
    const entries = await readdir(dataDir, { withFileTypes: true, encoding: 'buffer' })
    return entries
      .filter((entry) => entry.isDirectory() && entry.name[0] !== DOT)
      .map((entry) => bucketLabel(entry.name))
      .filter((name) => !NOT_BUCKETS.has(name))
  } catch (error) {
    throw toSourceError(error, `cannot list ${dataDir}`)
  }
}

const DOT = 0x2e
const BACKSLASH = 0x5c

/** `\\` or `\xNN`: the escapes of a bucket label. */
const ESCAPE = /\\(\\|x[0-9a-f]{2})/

/**
 * The `bucket` label of a folder name (bytes). A valid UTF-8 name is its own label unless it holds
 * what reads as an escape (`\\`, `\xNN`); any other name is escaped: each byte that is not part of
 * a valid UTF-8 character becomes `\xNN` (two lowercase hex digits) and each backslash `\\`.
 * Escaped labels always hold an escape and plain ones never do, so two folders never share a
 * label and bucketFolder() finds the folder again. (S3 bucket names hold no backslash, and a name
 * such as `back\slash` stays as it is.)
 */
export function bucketLabel(name: Uint8Array): string {
  const bytes = Buffer.from(name.buffer, name.byteOffset, name.byteLength)
  if (isUtf8(bytes)) {
    const text = bytes.toString('utf8')
    if (!ESCAPE.test(text)) return text
  }
  let label = ''
  let index = 0
  while (index < bytes.length) {
    const length = utf8CharLength(bytes, index)
    if (length === 0) {
      label += `\\x${(bytes[index] as number).toString(16).padStart(2, '0')}`
      index++
    } else {
      const char = bytes.toString('utf8', index, index + length)
      label += char === '\\' ? '\\\\' : char
      index += length
    }
  }
  return label
}

/** The folder name (bytes) a bucketLabel() came from; a label without escapes is its own name. */
export function bucketFolder(label: string): Buffer {
  if (!ESCAPE.test(label)) return Buffer.from(label, 'utf8')
  const parts: Buffer[] = []
  let index = 0
  while (index < label.length) {
    const found = ESCAPE.exec(label.slice(index, index + 4))
    if (found?.index === 0) {
      const code = found[1] === '\\' ? BACKSLASH : Number.parseInt(found[1]?.slice(1) ?? '', 16)
      parts.push(Buffer.from([code]))
      index += found[0].length
    } else {
      const char = String.fromCodePoint(label.codePointAt(index) as number)
      parts.push(Buffer.from(char, 'utf8'))
      index += char.length
    }
  }
  return Buffer.concat(parts)
}

/** The length of the valid UTF-8 character at `index` (RFC 3629: no overlongs, no surrogates), or 0. */
function utf8CharLength(bytes: Buffer, index: number): number {
  const lead = bytes[index] as number
  if (lead < 0x80) return 1
  let length: number
  let low = 0x80
  let high = 0xbf
  if (lead >= 0xc2 && lead <= 0xdf) length = 2
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3
    if (lead === 0xe0) low = 0xa0
    if (lead === 0xed) high = 0x9f
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4
    if (lead === 0xf0) low = 0x90
    if (lead === 0xf4) high = 0x8f
  } else return 0
  if (index + length > bytes.length) return 0
  for (let offset = 1; offset < length; offset++) {
    const byte = bytes[index + offset] as number
    if (byte < (offset === 1 ? low : 0x80) || byte > (offset === 1 ? high : 0xbf)) return 0
  }
  return length
}

async function measureBucket(
  pool: WalkPool,
  dataDir: string,
  bucket: string,
  signal: AbortSignal,
  nowMs: number,
): Promise<BucketUsage> {
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
  let root: WalkResult
  let rootTask: WalkTask
  try {
    rootTask = { dirs: [dir], expand: true, isBucketRoot: true, nowMs }
    root = await pool.run(rootTask, signal, dir)
  } catch (error) {
    return fail(error)
  }
  const first = splitFolders(rootTask, root.subdirs, 0, pool.size)
  if (first.length === 0) return { ...root.usage, unreadableEntries: root.unreadable }
  // One failing part ends the bucket: its other parts stop instead of walking on for nothing. (Made
  // only for buckets with parts: a scan of many small buckets makes no controller per bucket.)
  const abort = linkedAbort(signal)
  const stop = abort.signal
  // Every queued part of the bucket listens to it; a large bucket has many parts.
  setMaxListeners(0, stop)
  let unreadable = root.unreadable
  const walk = async (task: WalkTask, depth: number): Promise<BucketUsage> => {
    const result = await pool.run(task, stop, dir)
    unreadable += result.unreadable
    const parts = await Promise.all(
      splitFolders(task, result.subdirs, depth, pool.size).map((next) => walk(next, depth + 1)),
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
