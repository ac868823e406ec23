import type { Stats } from 'node:fs'
import { stat } from 'node:fs/promises'

/*
 * What STATE_FILE may name: a regular file, a link to one, or a path where nothing is yet. A
 * character device (`/dev/null`, meant as "off") would be replaced by a regular file at the first
 * write, run as root; a FIFO blocks the open that reads it until something writes to it; a folder
 * or a socket is no snapshot either. Each is refused at start, before anything opens it.
 */

/** What `stats` is, in words, when it is not a regular file. */
export function notRegular(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  if (stats.isFIFO()) return 'a FIFO (named pipe)'
  if (stats.isDirectory()) return 'a folder'
  if (stats.isSocket()) return 'a socket'
  return 'not a regular file'
}

/**
 * Why `path` cannot be the state file, or undefined: a regular file (through its links), or
 * nothing there yet. Other errors (no permission) are left to the load and the write, which say so.
 * stat opens nothing, so it does not block on a FIFO; on a hung mount it waits like any call.
 */
export async function stateFileKindProblem(path: string): Promise<string | undefined> {
  let stats: Stats
  try {
    stats = await stat(path)
  } catch {
    return undefined
  }
  const kind = notRegular(stats)
  return kind === undefined ? undefined : `${path} is ${kind}, not a regular file`
}
