// long: two jobs of one format, the checked loading and the atomic writing; could split into load and save
import { randomBytes } from 'node:crypto'
import { lstat, open, readdir, readFile, readlink, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { BucketUsageSchema } from './bucket-usage.js'
import type { BucketRecord, UsageSnapshot } from './snapshot.js'

/**
 * STATE_FILE: the last snapshot on disk, so a restart serves figures at once. Written atomically
 * (a temporary file in the same folder, flushed, then renamed over the old one), so a crash leaves
 * the old file or the new one, never half of one. Read with a schema: anything that is not a
 * snapshot of this format version (corrupt, truncated, another program's file, histogram bounds
 * that changed) is refused with a reason, never trusted.
 */

const FORMAT = 'objstore-exporter/usage-snapshot'
const FORMAT_VERSION = 1

/** 2000-01-01T00:00:00Z: no snapshot of ours was taken before. */
const EARLIEST_MS = Date.UTC(2000, 0, 1)
/** How far ahead of our clock a time of ours may be (another replica's clock, a corrected clock). */
const CLOCK_SKEW_MS = 5 * 60_000

/** One bucket's record. Its last success, a time of our own clock, is bounded by checkRecords. */
const BucketRecordSchema = Type.Object({
  name: Type.String(),
  usage: Type.Optional(BucketUsageSchema),
  scanSuccess: Type.Boolean(),
  scanDurationSeconds: Type.Number({ minimum: 0 }),
  lastSuccessSeconds: Type.Optional(Type.Number()),
})
/** Compiled once: 10,000 records take some 30 ms to check this way, 370-750 ms interpreted. */
const bucketRecordCheck = TypeCompiler.Compile(BucketRecordSchema)

/** The file's outline; each record is checked on its own, so one bad record does not cost the rest. */
const StateFileSchema = Type.Object({
  format: Type.Literal(FORMAT),
  version: Type.Literal(FORMAT_VERSION),
  snapshot: Type.Object({
    sourceName: Type.String(),
    sourceId: Type.String(),
    sourceUp: Type.Boolean(),
    completedAtMs: Type.Number(),
    buckets: Type.Array(Type.Unknown()),
    outsideBucketsBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  }),
})

// A stored snapshot must be a snapshot: this fails to compile if the record's schema and the
// snapshot types drift apart. (BucketUsage is derived from BucketUsageSchema, so a new per-bucket
// figure is stored and checked without an edit here.)
type StoredRecord = Static<typeof BucketRecordSchema>
type StoredSnapshot = Omit<Static<typeof StateFileSchema>['snapshot'], 'buckets'> & {
  buckets: StoredRecord[]
}
const schemaMatches: StoredSnapshot extends UsageSnapshot ? true : false = true
void schemaMatches

/** A bucket record left out of a snapshot read or written, and why. */
export interface RefusedRecord {
  readonly bucket: string
  readonly reason: string
}

export type StateLoad =
  | {
      readonly status: 'loaded'
      readonly snapshot: UsageSnapshot
      readonly refused: readonly RefusedRecord[]
    }
  | { readonly status: 'absent' }
  | { readonly status: 'ignored'; readonly reason: string }

/** Why a snapshot's completion time cannot be trusted at `nowMs`, or undefined. */
function completedAtProblem(completedAtMs: number, nowMs: number): string | undefined {
  if (completedAtMs >= EARLIEST_MS && completedAtMs <= nowMs + CLOCK_SKEW_MS) return undefined
  return `completedAtMs ${completedAtMs} is not a time between ${new Date(EARLIEST_MS).toISOString()} and now`
}

/** Why a bucket record is not whole and in range (its name aside), or undefined. */
function recordProblem(record: unknown, nowMs: number): string | undefined {
  if (!bucketRecordCheck.Check(record)) {
    const first = bucketRecordCheck.Errors(record).First()
    return first ? `${first.path || '/'} = ${shown(first.value)}: ${first.message}` : 'unknown shape'
  }
  const seconds = record.lastSuccessSeconds
  if (seconds !== undefined && !(seconds >= EARLIEST_MS / 1000 && seconds <= (nowMs + CLOCK_SKEW_MS) / 1000))
    return `/lastSuccessSeconds = ${seconds}: not a time between 2000 and now`
  return undefined
}

/** How many records bear each name. */
function nameCounts(records: readonly unknown[]): Map<unknown, number> {
  const counts = new Map<unknown, number>()
  for (const record of records) {
    const name = (record as { name?: unknown } | null)?.name
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  return counts
}

/**
 * The records that are whole and in range, sorted by name as a snapshot's are; the others with a
 * reason. A name found in more than one record is refused in each: which of them holds the true
 * figures cannot be told, and serving both would give duplicate series.
 */
function checkRecords(
  records: readonly unknown[],
  nowMs: number,
): { kept: BucketRecord[]; refused: RefusedRecord[] } {
  const counts = nameCounts(records)
  const kept: BucketRecord[] = []
  const refused: RefusedRecord[] = []
  records.forEach((record, index) => {
    const problem = recordProblem(record, nowMs)
    const name = (record as BucketRecord).name
    if (problem !== undefined)
      refused.push({
        bucket: typeof name === 'string' ? name : `#${index + 1}`,
        reason: `not a valid bucket record (${problem})`,
      })
    else if (counts.get(name) === 1) kept.push(record as BucketRecord)
  })
  for (const [name, count] of counts)
    if (count > 1 && typeof name === 'string')
      refused.push({ bucket: name, reason: `${count} records for the same bucket` })
  kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { kept, refused }
}

/** A value as a reason shows it: numbers as JavaScript prints them (NaN, Infinity), the rest as JSON. */
function shown(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 80)}...` : text
}

/**
 * Reads the state file written for `sourceId`. A file that is not one (or whose completion time is
 * out of range) comes back as 'ignored' with a reason; bucket records that are not whole and in
 * range are left out, each with a reason.
 */
export async function loadState(path: string, sourceId: string, nowMs = Date.now()): Promise<StateLoad> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' }
    return { status: 'ignored', reason: `cannot read it: ${(error as Error).message}` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { status: 'ignored', reason: `not valid JSON (${(error as Error).message})` }
  }
  if (!Value.Check(StateFileSchema, parsed)) {
    const first = Value.Errors(StateFileSchema, parsed).First()
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown shape'
    return {
      status: 'ignored',
      reason: `not a usage snapshot of format ${FORMAT} v${FORMAT_VERSION} (${where})`,
    }
  }
  if (parsed.snapshot.sourceId !== sourceId) {
    return {
      status: 'ignored',
      reason: `written for another source (${parsed.snapshot.sourceId}), not ${sourceId}`,
    }
  }
  const timeProblem = completedAtProblem(parsed.snapshot.completedAtMs, nowMs)
  if (timeProblem) return { status: 'ignored', reason: timeProblem }
  const { kept, refused } = checkRecords(parsed.snapshot.buckets, nowMs)
  return { status: 'loaded', snapshot: { ...parsed.snapshot, buckets: kept }, refused }
}

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
export async function stateFileTarget(path: string): Promise<string> {
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

/** Serialising gives the event loop back after this long (10,000 buckets take some 50 ms in all). */
const SLICE_MS = 8

/**
 * Writes the snapshot atomically: temporary file in the target's folder, fsync, rename. Serialised
 * bucket by bucket in slices, written as it goes, so a large snapshot never holds the event loop
 * for long. Records the loader would refuse are left out and returned. A failure's message names
 * the step, folder and cause, never the random temporary name, so the same cause reads the same.
 */
export async function saveState(
  path: string,
  snapshot: UsageSnapshot,
): Promise<{ readonly refused: readonly RefusedRecord[] }> {
  const nowMs = Date.now()
  const timeProblem = completedAtProblem(snapshot.completedAtMs, nowMs)
  if (timeProblem) throw new Error(`not written: ${timeProblem}`)
  const refused: RefusedRecord[] = []
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
    await step(`cannot rename a temporary file over ${target}`, () => rename(temporary, target))
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  return { refused }
}

/**
 * The file's JSON in pieces of about SLICE_MS of work each; joined, exactly JSON.stringify's but for
 * the records the loader would refuse, which go to `refused` instead (checked in the same slices:
 * some 30 ms at 10,000 buckets).
 */
async function* serialise(
  snapshot: UsageSnapshot,
  nowMs: number,
  refused: RefusedRecord[],
): AsyncGenerator<string> {
  const { buckets, ...rest } = snapshot
  // `buckets` last, so the document ends in `"buckets":[]}}`: the records go between the brackets.
  const outline = JSON.stringify({
    format: FORMAT,
    version: FORMAT_VERSION,
    snapshot: { ...rest, buckets: [] },
  })
  const counts = nameCounts(buckets)
  const twice = new Set<unknown>()
  let text = outline.slice(0, -3)
  let written = 0
  let sliceStart = performance.now()
  for (const record of buckets) {
    const problem = recordProblem(record, nowMs)
    if (problem !== undefined)
      refused.push({ bucket: record.name, reason: `not a valid bucket record (${problem})` })
    else if ((counts.get(record.name) ?? 0) > 1) twice.add(record.name)
    else text += `${written++ ? ',' : ''}${JSON.stringify(record)}`
    if (performance.now() - sliceStart >= SLICE_MS) {
      yield text
      text = ''
      sliceStart = performance.now()
    }
  }
  for (const name of twice)
    refused.push({ bucket: String(name), reason: `${counts.get(name)} records for the same bucket` })
  yield `${text}${outline.slice(-3)}`
}
