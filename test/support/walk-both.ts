import { fileURLToPath } from 'node:url'
import { type FolderReader, nativeWalk } from '../../src/sources/fs/native-walk.js'
import { jsFolderReader, type WalkTask, walkDirectory } from '../../src/sources/fs/walk.js'

/**
 * The native and the JavaScript fs walk run over the same folders, each task of `tasks` once with
 * each reader: what each returned (or the error code it threw), subfolders sorted (Node's readdirSync
 * sorts names, a folder read through its descriptor gives them in the folder's own order).
 * Run as a script (`node --import tsx walk-both.ts <tasks as JSON>`) it prints that as JSON: how a
 * test walks as another user (a folder without permission, when the test runs as root).
 */
export interface BothWalks {
  readonly js: unknown[]
  readonly native: unknown[]
  /** "native", or "JavaScript (<why>)" when the native walk is not built. */
  readonly walker: string
}

export function walkBoth(tasks: readonly WalkTask[]): BothWalks {
  const { reader, walker } = nativeWalk()
  const outcomes = (folderReader: FolderReader | undefined) =>
    folderReader ? tasks.map((task) => outcome(task, folderReader)) : []
  return { js: outcomes(jsFolderReader), native: outcomes(reader), walker }
}

function outcome(task: WalkTask, reader: FolderReader): unknown {
  try {
    const result = walkDirectory(task, { reader })
    return { ...result, subdirs: [...result.subdirs].sort() }
  } catch (error) {
    return { threw: (error as NodeJS.ErrnoException).code }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify(walkBoth(JSON.parse(process.argv[2] ?? '[]') as WalkTask[])))
}
