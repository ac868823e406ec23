import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { constants } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getSystemErrorMap } from 'node:util'

/**
 * The native fs walk (native/fswalk.c, built by scripts/build-native.mjs): a folder read through
 * its own descriptor and each file stat'ed relative to it (fstatat), like `du`, with the figures
 * put into reused typed arrays instead of a Stats object per file. It takes about a quarter less
 * CPU per file than lstatSync of each whole path (docs/performance.md). Loaded once per thread
 * when the file is there; otherwise the JavaScript walk (walk.ts) runs, with the same figures.
 */

/** What walk.ts gives a folder reader: each subfolder, each regular file, each entry not stat'ed. */
export interface FolderSink {
  folder(path: string): void
  /** `path` only when the reader was asked for paths (per-file prefixes). */
  file(size: number, mtimeMs: number, path: string | undefined): void
  unreadable(): void
}

/**
 * Reads one folder (a byte string path, see WalkTask) into `sink`. Throws the folder's error with
 * its errno `code`; a folder gone (ENOENT) or no longer a folder (ENOTDIR) is nothing unless
 * `mustExist`.
 */
export type FolderReader = (dir: string, mustExist: boolean, wantPaths: boolean, sink: FolderSink) => void

interface NativeWalk {
  open(path: string): object | number
  read(
    handle: object,
    kinds: Uint8Array,
    sizes: Float64Array,
    mtimes: Float64Array,
    names: string[],
    fileNames: boolean,
  ): number
  close(handle: object): void
}

const NATIVE_WALK_FILE = 'fswalk.node'
/**
 * Where the file is, in the nearest folder up from this module that has it: compiled (the bundle
 * in dist/, or the benches' tsc output), the root of the code folder, `fswalk.node`; run from src/
 * through tsx, the repository's `native/build/fswalk.node` (src/ holds sources only). Searched
 * upwards so this module's depth in the tree does not matter.
 */
function nativeWalkFile(): string | undefined {
  const fromSource = import.meta.url.endsWith('.ts')
  const relative = fromSource ? join('native', 'build', NATIVE_WALK_FILE) : NATIVE_WALK_FILE
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative)
    if (dirname(dir) === dir) return undefined
  }
}

/** Entries per read of a folder: a huge flat folder is read this many at a time. */
export const NATIVE_BATCH = 1024
const KIND_DIR = 1
const KIND_FILE = 2

let loaded: { readonly reader: FolderReader | undefined; readonly walker: string } | undefined

/** The native reader of this thread, loaded at the first call; undefined (and why) without it. */
export function nativeWalk(): { readonly reader: FolderReader | undefined; readonly walker: string } {
  if (loaded) return loaded
  const file = nativeWalkFile()
  if (!file) {
    loaded = { reader: undefined, walker: `JavaScript (no ${NATIVE_WALK_FILE} built beside the code)` }
    return loaded
  }
  try {
    const addon = createRequire(import.meta.url)(file) as NativeWalk
    loaded = { reader: nativeFolderReader(addon), walker: 'native' }
  } catch (error) {
    loaded = { reader: undefined, walker: `JavaScript (${file} did not load: ${(error as Error).message})` }
  }
  return loaded
}

function nativeFolderReader(addon: NativeWalk): FolderReader {
  const kinds = new Uint8Array(NATIVE_BATCH)
  const sizes = new Float64Array(NATIVE_BATCH)
  const mtimes = new Float64Array(NATIVE_BATCH)
  const names: string[] = []
  return (dir, mustExist, wantPaths, sink) => {
    const handle = addon.open(dir)
    if (typeof handle === 'number') {
      if (!mustExist && (handle === -constants.errno.ENOENT || handle === -constants.errno.ENOTDIR)) return
      throw folderError(handle, dir)
    }
    try {
      for (;;) {
        const count = addon.read(handle, kinds, sizes, mtimes, names, wantPaths)
        if (count < 0) throw folderError(count, dir)
        for (let index = 0; index < count; index++) {
          const kind = kinds[index]
          if (kind === KIND_FILE) {
            sink.file(
              sizes[index] as number,
              mtimes[index] as number,
              wantPaths ? `${dir}/${names[index]}` : undefined,
            )
          } else if (kind === KIND_DIR) sink.folder(`${dir}/${names[index]}`)
          else sink.unreadable()
        }
        if (count < NATIVE_BATCH) return
      }
    } finally {
      addon.close(handle)
    }
  }
}

/** An error as Node's fs throws it (code, errno, message), from the addon's -errno. */
function folderError(negativeErrno: number, dir: string): NodeJS.ErrnoException {
  const [code, description] = getSystemErrorMap().get(negativeErrno) ?? [
    `E${-negativeErrno}`,
    'unknown error',
  ]
  const path = Buffer.from(dir, 'latin1').toString('utf8')
  return Object.assign(new Error(`${code}: ${description}, scandir '${path}'`), {
    code,
    errno: negativeErrno,
    syscall: 'scandir',
    path,
  })
}
