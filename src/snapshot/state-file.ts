import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { Slices } from '../event-loop-slices.js'
import { type BucketRecord, byName, inOrder } from './snapshot.js'
import {
  FORMAT,
  FORMAT_VERSION,
  loadedSnapshot,
  nameCounts,
  outlineProblem,
  RefusedRecords,
  recordProblem,
  recordValid,
  STATE_FILE_LIMITS,
  type StateFileLimits,
  type StateLoad,
  stateEndCheck,
  stateHeaderCheck,
} from './state-file-format.js'
import { notRegular } from './state-file-kind.js'
import { LEGACY_START, loadLegacyState } from './state-file-legacy.js'
import { fileLineChunks, type Line, LineTooLong, lines } from './state-file-lines.js'
import { storedRecord } from './stored-records.js'

/**
 * STATE_FILE: the last snapshot on disk, so a restart serves figures at once. Written atomically
 * (a temporary file in the same folder, flushed, then renamed over the old one), so a crash leaves
 * the old file or the new one, never half of one. Read with a schema: anything that is not a
 * snapshot of this format version (corrupt, truncated, another program's file, histogram bounds
 * that changed) is refused with a reason, never trusted. Read a line at a time, each record
 * checked as it comes, in slices: at 100,000 buckets (115 MB) loading is seconds of
 * work, during which the event loop is never held more than a slice.
 */

export type { RefusedRecord, StateLoad } from './state-file-format.js'
export { removeStaleTemporaries, saveState } from './state-file-save.js'

/** Why the file is ignored: thrown inside the reader, returned by loadState. */
class Ignored extends Error {}

/**
 * Reads the state file written for `sourceId`. A file that is not one (or whose completion time is
 * out of range, or that passes `limits`, or that is not a regular file) comes back as 'ignored'
 * with a reason; bucket records that are not whole, in range and possible are left out, counted,
 * the first named with a reason. `onProgress` is called at each step that answered (the open, each
 * chunk read), so a caller can tell a slow load from a stalled one.
 */
export async function loadState(
  path: string,
  sourceId: string,
  nowMs = Date.now(),
  limits: StateFileLimits = STATE_FILE_LIMITS,
  onProgress: () => void = () => undefined,
): Promise<StateLoad> {
  let handle: FileHandle
  try {
    // Non-blocking: a FIFO put there since the start's check opens at once, and is refused below.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' }
    return { status: 'ignored', reason: `cannot read it: ${(error as Error).message}` }
  }
  try {
    onProgress()
    const stats = await handle.stat()
    const kind = notRegular(stats)
    if (kind !== undefined) return { status: 'ignored', reason: `it is ${kind}, not a regular file` }
    const { size } = stats
    if (size > limits.fileBytes)
      return { status: 'ignored', reason: `larger than ${limits.fileBytes} bytes (${size})` }
    const start = Buffer.alloc(LEGACY_START.length)
    await handle.read(start, 0, start.length, 0)
    if (start.toString('latin1') === LEGACY_START)
      return loadLegacyState(await handle.readFile('utf8'), sourceId, nowMs)
    return await readLines(handle, sourceId, nowMs, limits, onProgress)
  } catch (error) {
    if (error instanceof Ignored || error instanceof LineTooLong)
      return { status: 'ignored', reason: error.message }
    return { status: 'ignored', reason: `cannot read it: ${(error as Error).message}` }
  } finally {
    await handle.close()
  }
}

async function readLines(
  handle: FileHandle,
  sourceId: string,
  nowMs: number,
  limits: StateFileLimits,
  onProgress: () => void,
): Promise<StateLoad> {
  const chunks = fileLineChunks(handle, limits.lineBytes)
  try {
    const first = await chunks.next()
    const firstBytes = first.done ? Buffer.alloc(0) : first.value
    const headerEnd = firstBytes.indexOf(0x0a)
    const header = first.done
      ? undefined
      : parsed(firstBytes.toString('utf8', 0, headerEnd === -1 ? firstBytes.length : headerEnd), 1)
    if (!stateHeaderCheck.Check(header)) {
      const problem = first.done ? undefined : stateHeaderCheck.Errors(header).First()
      const where = problem ? `${problem.path || '/'}: ${problem.message}` : 'an empty file'
      return {
        status: 'ignored',
        reason: `not a usage snapshot of format ${FORMAT} v${FORMAT_VERSION} (${where})`,
      }
    }
    // Another source's file, or one out of time, is not read further.
    const reason = outlineProblem(header.snapshot, sourceId, nowMs)
    if (reason !== undefined) return { status: 'ignored', reason }
    const records = new RecordReader(nowMs, limits.records)
    const slices = new Slices()
    let lineNumber = 1
    let announced: number | undefined
    // A chunk's lines (some hundreds of records): one await per chunk, not per line.
    for (let bytes = headerEnd === -1 ? undefined : firstBytes.subarray(headerEnd + 1); ; ) {
      if (bytes !== undefined)
        for (const line of lines(bytes)) {
          lineNumber++
          if (announced !== undefined) throw new Ignored(`line ${lineNumber} follows the end line`)
          const value = parsed(line.text, lineNumber)
          if (stateEndCheck.Check(value)) announced = value.records
          else records.add(value, lineNumber, bytes, line)
          if (slices.due) await slices.next()
        }
      const next = await chunks.next()
      onProgress()
      if (next.done) break
      bytes = next.value
    }
    if (announced === undefined)
      throw new Ignored(`cut short: no end line after ${records.count} records (an unfinished copy?)`)
    if (announced !== records.count)
      throw new Ignored(
        `cut short: the end line counts ${announced} records, the file holds ${records.count}`,
      )
    const { kept, refused } = records.finish()
    return loadedSnapshot(header.snapshot, kept, refused, sourceId, nowMs)
  } finally {
    // Left early (ignored, or a line refused): the read under way is waited for before the file closes.
    await chunks.return(undefined)
  }
}

function parsed(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line)
  } catch (error) {
    throw new Ignored(`line ${lineNumber} is not valid JSON (${(error as Error).message})`)
  }
}

/**
 * The records as they come, each checked (kept) or refused with its reason; a name found
 * in more than one record is refused in each, since which holds the true figures cannot be told.
 */
class RecordReader {
  readonly #nowMs: number
  readonly #maxRecords: number
  readonly #kept: BucketRecord[] = []
  readonly #refused = new RefusedRecords()
  count = 0

  constructor(nowMs: number, maxRecords: number) {
    this.#nowMs = nowMs
    this.#maxRecords = maxRecords
  }

  /** `record`, parsed from the line `bytes[line.start, line.end)`. */
  add(record: unknown, lineNumber: number, bytes: Buffer, line: Line): void {
    if (++this.count > this.#maxRecords) throw new Ignored(`more than ${this.#maxRecords} bucket records`)
    if (!recordValid(record, this.#nowMs)) {
      // Refused lines keep nothing (but the first few's names and reasons): only a count.
      this.#refused.add(
        () => {
          const name = (record as { name?: unknown } | null)?.name
          return typeof name === 'string' ? name : `line ${lineNumber}`
        },
        () => `not a valid bucket record (${recordProblem(record, this.#nowMs)})`,
      )
      return
    }
    // Records with figures keep them as their line's bytes (stored-records.ts); the parsed object dies young.
    this.#kept.push(
      record.usage === undefined ? record : storedRecord(record, bytes.subarray(line.start, line.end)),
    )
  }

  /**
   * The records kept, sorted by name as a snapshot's are (the writer writes them so). Sorted, a
   * name found twice is found side by side: only then are names counted (a Map of 100,000 names
   * built as records came cost the load 20-40 ms).
   */
  finish(): { kept: BucketRecord[]; refused: RefusedRecords } {
    let kept = this.#kept
    if (!inOrder(kept, (record) => record.name)) kept.sort(byName)
    if (kept.some((record, index) => index > 0 && record.name === kept[index - 1]?.name)) {
      const counts = nameCounts(kept)
      kept = kept.filter((record) => counts.get(record.name) === 1)
      for (const [name, count] of counts)
        if (count > 1)
          this.#refused.add(
            () => String(name),
            () => `${count} records for the same bucket`,
          )
    }
    return { kept, refused: this.#refused }
  }
}
