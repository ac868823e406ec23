import { type Dir, lstatSync, opendirSync, readdirSync } from 'node:fs'
import { boundedPrefix, type PrefixSettings, prefixEnd, ROOT_PREFIX } from '../../figures/prefixes/labels.js'
import { type ListedObject, UsageAccumulator } from '../../record/bucket-usage.js'
import type { BucketUsage } from '../types.js'
import { bucketLabel } from './names.js'
import { type FolderReader, type FolderSink, nativeWalk } from './native-walk.js'

/**
 * One unit of work of the fs walk: some folders of one bucket. Paths are byte strings (latin1: one
 * character per byte of the name), so names that are not valid UTF-8 reach the filesystem exactly
 * as they are instead of as U+FFFD, and still travel between threads as plain strings.
 */
export interface WalkTask {
  readonly dirs: readonly string[]
  /**
   * true: fold the files directly in `dirs` and hand their subfolders back unwalked, so they can
   * be shared among threads; false: walk everything below `dirs`.
   */
  readonly expand: boolean
  /** `dirs` is the bucket's own folder: its absence means a missing bucket, not a race with a delete. */
  readonly isBucketRoot: boolean
  /** The scan's start, ms since the epoch: what files' ages are measured against. */
  readonly nowMs: number
  /** Whether files are folded into age bands (the `age` group); default true. */
  readonly ages?: boolean
  /** The bucket's folder (a byte string), which keys are relative to, when prefixes are measured. */
  readonly root?: string
  /** PREFIX_*, when on: each file's key is its path below `root`, joined by `/`. */
  readonly prefixes?: PrefixSettings | undefined
}

export interface WalkResult {
  readonly usage: BucketUsage
  /** Subdirectories left for other tasks (only when the task expanded); byte strings as in WalkTask. */
  readonly subdirs: readonly string[]
  /**
   * Entries below the bucket's folder that could not be read (a folder or file whose path is
   * longer than PATH_MAX, an I/O error, no permission): counted and skipped, the rest is measured.
   */
  readonly unreadable: number
}

/** A byte-string path (see WalkTask) as the filesystem wants it. */
export const pathBytes = (path: string): Buffer => Buffer.from(path, 'latin1')

const NOT_ASCII = /[\u0080-\uffff]/
/**
 * An ASCII byte string means the same bytes as a (UTF-8) string, so it is given to the filesystem
 * as it is: no Buffer to make and scan for a NUL per file (about a tenth of the walk's CPU).
 */
const isAscii = (path: string): boolean => !NOT_ASCII.test(path)

export interface WalkOptions {
  /** Reads a folder: the native reader (native-walk.ts) when built, else the JavaScript one. */
  readonly reader?: FolderReader
  /** Asked between folders and every FILES_PER_STOP_CHECK files: true ends the walk (WalkStopped). */
  readonly stopped?: () => boolean
  /** Told the objects and bytes folded so far every `filesPerProgress` files (the round's progress). */
  readonly progress?: (objects: number, bytes: number) => void
  /** FILES_PER_PROGRESS unless a test says otherwise; checked every FILES_PER_STOP_CHECK files. */
  readonly filesPerProgress?: number
}

/** A walk ended because it was told to stop (its scan aborted or timed out). */
export class WalkStopped extends Error {
  readonly code = 'ESTOPPED'
  constructor() {
    super('walk stopped')
    this.name = 'WalkStopped'
  }
}

/** Files between two checks of WalkOptions.stopped within a folder: some milliseconds of walking. */
const FILES_PER_STOP_CHECK = 4096
/**
 * Files between two reports of WalkOptions.progress: a message to the main thread each, some
 * tenths of a second of walking (the native walk folds 200,000 files in about 0.4 s).
 */
export const FILES_PER_PROGRESS = 16 * FILES_PER_STOP_CHECK

/**
 * Walks with synchronous folder reads on a worker thread: several times faster than a promise per
 * file (no promise, no thread-pool hop per call) and close to `du -sb`. Every regular file is an
 * object (size, mtime); symbolic links, sockets and devices are not, and are not followed. Files
 * or folders deleted while the walk runs are skipped; what cannot be read is counted (like `du`,
 * which reports it and sums the rest). Only the bucket's own folder must be readable. Folders are
 * read by the native reader when built, else the JavaScript one below; `stopped` ends it early.
 */
export function walkDirectory(task: WalkTask, options: WalkOptions = {}): WalkResult {
  const reader = options.reader ?? defaultReader()
  const { stopped, progress } = options
  const filesPerProgress = options.filesPerProgress ?? FILES_PER_PROGRESS
  let filesToCheck = FILES_PER_STOP_CHECK
  let reportedAt = 0
  const fold = new UsageAccumulator({
    storageClasses: false,
    nowMs: task.nowMs,
    ages: task.ages,
    prefixTopK: task.prefixes?.topK,
  })
  const prefixOf =
    task.prefixes && task.root !== undefined ? prefixLabeller(task.root, task.prefixes) : undefined
  // With `/` (the default) a file's prefix is its folder's: the folder's files are summed and
  // added once, instead of a label and a sketch step per file.
  const perFolder = prefixOf !== undefined && task.prefixes?.delimiter === '/'
  const wantPaths = prefixOf !== undefined && !perFolder
  const subdirs: string[] = []
  const stack = [...task.dirs]
  let unreadable = 0
  let folderBytes = 0
  let folderObjects = 0
  // One object handed to the fold for every file (it keeps nothing of it): none allocated per file.
  const file: ListedObject = { size: 0, modifiedMs: 0 }
  const fileSink: FolderSink['file'] = perFolder
    ? (size, mtimeMs) => {
        file.size = size
        file.modifiedMs = mtimeMs
        fold.add(file)
        folderBytes += size
        folderObjects++
      }
    : prefixOf
      ? (size, mtimeMs, path) => {
          file.size = size
          file.modifiedMs = mtimeMs
          file.prefix = prefixOf(path as string)
          fold.add(file)
        }
      : (size, mtimeMs) => {
          file.size = size
          file.modifiedMs = mtimeMs
          fold.add(file)
        }
  const sink: FolderSink = {
    folder: task.expand ? (path) => subdirs.push(path) : (path) => stack.push(path),
    // A flat folder of millions of files is one folder: asked every few thousand files as well.
    file:
      stopped || progress
        ? (size, mtimeMs, path) => {
            fileSink(size, mtimeMs, path)
            if (--filesToCheck > 0) return
            filesToCheck = FILES_PER_STOP_CHECK
            if (stopped?.()) throw new WalkStopped()
            if (!progress || fold.objects - reportedAt < filesPerProgress) return
            reportedAt = fold.objects
            progress(fold.objects, fold.bytes)
          }
        : fileSink,
    unreadable: () => {
      unreadable++
    },
  }
  while (stack.length > 0) {
    if (stopped?.()) throw new WalkStopped()
    const dir = stack.pop() as string
    const mustRead = task.isBucketRoot && task.dirs.includes(dir)
    folderBytes = 0
    folderObjects = 0
    try {
      reader(dir, mustRead, wantPaths, sink)
    } catch (error) {
      if (mustRead || error instanceof WalkStopped) throw error
      unreadable++
    }
    // Its files' prefix is the folder's (a name holds no `/`): the label of `dir/` as a key.
    if (folderObjects > 0 && prefixOf) fold.addPrefix(prefixOf(`${dir}/`), folderBytes, folderObjects)
  }
  return { usage: fold.finish(), subdirs, unreadable }
}

/** The walk this thread runs: the native reader when it loads, else the JavaScript one. */
function defaultReader(): FolderReader {
  return nativeWalk().reader ?? jsFolderReader
}

/** Which walk this thread runs: "native", or "JavaScript (<why>)". */
export const walkerName = (): string => nativeWalk().walker

/** The JavaScript walk of a folder: readdirSync (file types from the folder) and lstatSync per file. */
export const jsFolderReader: FolderReader = (dir, mustExist, _wantPaths, sink) => {
  const asciiDir = isAscii(dir)
  for (const entry of readEntries(dir, mustExist)) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) sink.folder(path)
    else if (entry.isFile()) {
      let stats: ReturnType<typeof lstatSync>
      try {
        stats = lstatSync(asciiDir && isAscii(entry.name) ? path : pathBytes(path), MAY_BE_GONE)
      } catch {
        sink.unreadable()
        continue
      }
      if (stats?.isFile()) sink.file(stats.size, stats.mtimeMs, path)
    }
  }
}

/**
 * The prefix label of a file's path (byte strings, see WalkTask): its key is the path below the
 * bucket's folder; a prefix that is not valid UTF-8 is escaped as bucket labels are. Files of one
 * folder share a prefix, so the last label is reused.
 */
function prefixLabeller(root: string, settings: PrefixSettings): (path: string) => string {
  const delimiter = Buffer.from(settings.delimiter, 'utf8').toString('latin1')
  let lastPrefix: string | undefined
  let lastLabel = ROOT_PREFIX
  return (path) => {
    const key = path.slice(root.length + 1)
    const end = prefixEnd(key, delimiter, settings.depth)
    if (end < 0) return ROOT_PREFIX
    const prefix = key.slice(0, end)
    if (prefix !== lastPrefix) {
      lastPrefix = prefix
      lastLabel = boundedPrefix(bucketLabel(Buffer.from(prefix, 'latin1')))
    }
    return lastLabel
  }
}

/** A file deleted since its folder was read is skipped, not an error. */
const MAY_BE_GONE = { throwIfNoEntry: false } as const

/**
 * Above this size a folder is read in batches instead of whole: readdirSync is about 10% faster
 * than iterating opendirSync, but holds every entry at once, and a flat bucket folder may hold
 * millions. A folder's own size grows with its entries (about 30,000 entries a MiB on ext4).
 */
const WHOLE_READ_LIMIT_BYTES = 1024 * 1024
const BATCH = 1024

type Entry = { readonly name: string; isDirectory(): boolean; isFile(): boolean }

function readEntries(dir: string, mustExist: boolean): Iterable<Entry> {
  const path = isAscii(dir) ? dir : pathBytes(dir)
  try {
    const stats = lstatSync(path)
    if (!stats.isDirectory())
      throw Object.assign(new Error(`ENOTDIR: not a directory, ${dir}`), { code: 'ENOTDIR' })
    if (stats.size <= WHOLE_READ_LIMIT_BYTES)
      return readdirSync(path, { withFileTypes: true, encoding: 'latin1' })
    return inBatches(opendirSync(path, { bufferSize: BATCH, encoding: 'latin1' }))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (!mustExist && (code === 'ENOENT' || code === 'ENOTDIR')) return []
    throw error
  }
}

function* inBatches(handle: Dir): Generator<Entry> {
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) yield entry
  } finally {
    handle.closeSync()
  }
}
