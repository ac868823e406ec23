import { randomBytes } from 'node:crypto'
import { lstat, open, readdir, readlink, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { Slices } from '../event-loop-slices.js'
import { userScanProblem } from '../record/user-usage.js'
import type { UsageSnapshot } from './snapshot.js'
import {
  completedAtProblem,
  FORMAT,
  FORMAT_VERSION,
  nameCounts,
  RefusedRecords,
  recordProblem,
  recordValid,
} from './state-file-format.js'
import { notRegular } from './state-file-kind.js'
import { storedLine } from './stored-records.js'

/* The state file's writing: atomic (temporary file, fsync, rename), in slices, symlinks followed. */

/**
 * Our temporary files for `target`: `.<its name>.<12 hex digits>.tmp` in its folder, so stale ones
 * can be told from another program's files (and from another state file's in the same folder).
 */
const temporaryPrefix = (target: string) => `.${basename(target).slice(0, 100)}.`
const TEMPORARY_SUFFIX = /^[0-9a-f]{12}\.tmp$/
/** What earlier versions named them (one folder-wide name for every state file). */
const LEGACY_TEMPORARY = /^\.[0-9a-f]{12}\.usage-state\.tmp$/

/**
 * The file a write of `path` must replace: `path`, or what its symbolic links lead to (even when
 * that does not exist yet), so a linked STATE_FILE updates its target rather than becoming a file.
 */
async function stateFileTarget(path: string): Promise<string> {
  let current = resolve(path)
  for (let hops = 0; hops < 40; hops++) {
    let link: string
    try {
      link = await readlink(current)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Not a link, or nothing there yet: this is the file.
      if (code === 'EINVAL' || code === 'ENOENT') return current
      throw error
    }
    current = resolve(dirname(current), link)
  }
  throw Object.assign(new Error('ELOOP: too many symbolic links'), { code: 'ELOOP' })
}

/**
 * Removes the temporary files a killed write left next to the state file (ours only, by name).
 * Meant for start-up, before this process writes: any such file is stale then.
 */
export async function removeStaleTemporaries(path: string): Promise<{ files: number; bytes: number }> {
  const removed = { files: 0, bytes: 0 }
  let target: string
  let names: string[]
  try {
    target = await stateFileTarget(path)
    names = await readdir(dirname(target))
  } catch {
    return removed // The write reports what is wrong with the folder.
  }
  const prefix = temporaryPrefix(target)
  for (const name of names) {
    const ours =
      (name.startsWith(prefix) && TEMPORARY_SUFFIX.test(name.slice(prefix.length))) ||
      LEGACY_TEMPORARY.test(name)
    if (!ours) continue
    const file = join(dirname(target), name)
    try {
      const stats = await lstat(file)
      if (!stats.isFile()) continue
      await rm(file)
      removed.files++
      removed.bytes += stats.size
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed
}

/** Node's error message without the path it names, which may hold a random temporary name. */
function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/, \w+( '.*')?$/s, '')
}

/** Runs `work`; a failure becomes an Error whose message is stable for the same cause. */
async function step<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw new Error(`${what}: ${errorText(error)}`, { cause: error })
  }
}

/**
 * Writes the snapshot atomically: temporary file in the target's folder, fsync, rename. Serialised
 * bucket by bucket in slices (Slices), written as it goes, so a large snapshot never holds the event loop
 * for long. Records the loader would refuse are left out and returned. A failure's message names
 * the step, folder and cause, never the random temporary name, so the same cause reads the same.
 */
export async function saveState(
  path: string,
  snapshot: UsageSnapshot,
): Promise<{ readonly refused: RefusedRecords }> {
  const nowMs = Date.now()
  const timeProblem = completedAtProblem(snapshot.completedAtMs, nowMs)
  if (timeProblem) throw new Error(`not written: ${timeProblem}`)
  const refused = new RefusedRecords()
  const target = await step(`cannot resolve ${path}`, () => stateFileTarget(path))
  const folder = dirname(target)
  const temporary = join(folder, `${temporaryPrefix(target)}${randomBytes(6).toString('hex')}.tmp`)
  const handle = await step(`cannot create a temporary file in ${folder}`, () => open(temporary, 'wx', 0o600))
  try {
    await step(`cannot write a temporary file in ${folder}`, async () => {
      for await (const text of serialise(snapshot, nowMs, refused)) await handle.write(text, null, 'utf8')
      await handle.datasync()
    })
  } catch (error) {
    await handle.close()
    await rm(temporary, { force: true })
    throw error
  }
  await handle.close()
  try {
    // A device or a FIFO put there since the start is not replaced by a file (STATE_FILE=/dev/null).
    const kind = await stat(target).then(notRegular, () => undefined)
    if (kind !== undefined) throw new Error(`not written: ${target} is ${kind}, not a regular file`)
    await step(`cannot rename a temporary file over ${target}`, () => rename(temporary, target))
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  return { refused }
}

/**
 * The file's lines (state-file-format.ts: a header, a record a line, the end line) in pieces of
 * about SLICE_MS of work each, but for the records the loader would refuse, which go to `refused`
 * instead (checked in the same slices: some 30 ms at 10,000 buckets).
 */
async function* serialise(
  snapshot: UsageSnapshot,
  nowMs: number,
  refused: RefusedRecords,
): AsyncGenerator<string> {
  const { buckets, users, ...rest } = snapshot
  // A per-user part the loader would refuse is left out (the next scan measures it again).
  const keptUsers = users !== undefined && userScanProblem(users) === undefined ? { users } : {}
  let text = `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, snapshot: { ...rest, ...keptUsers } })}\n`
  const counts = nameCounts(buckets)
  const twice = new Set<unknown>()
  let written = 0
  const slices = new Slices()
  for (const record of buckets) {
    const { name } = record
    // A record still held as its line (checked when loaded, never edited) is written as it is.
    const line = storedLine(record)
    if (line === undefined && !recordValid(record, nowMs))
      refused.add(
        () => name,
        () => `not a valid bucket record (${recordProblem(record, nowMs)})`,
      )
    else if ((counts.get(name) ?? 0) > 1) twice.add(name)
    else {
      text += `${line === undefined ? JSON.stringify(record) : line.toString('utf8')}\n`
      written++
    }
    if (slices.due) {
      yield text
      text = ''
      await slices.next()
    }
  }
  for (const name of twice)
    refused.add(
      () => String(name),
      () => `${counts.get(name)} records for the same bucket`,
    )
  yield `${text}${JSON.stringify({ end: true, records: written })}\n`
}
