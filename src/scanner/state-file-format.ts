import { type Static, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { BucketUsageSchema } from './bucket-usage-schema.js'
import type { BucketRecord, UsageSnapshot } from './snapshot.js'
import type { UserScanSchema } from './user-usage.js'

/*
 * The state file's format: its outline, a bucket record's schema and the checks both the loader
 * and the writer apply, so a record the writer keeps is one the loader accepts.
 */

export const FORMAT = 'objstore-exporter/usage-snapshot'
export const FORMAT_VERSION = 1

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
export const StateFileSchema = Type.Object({
  format: Type.Literal(FORMAT),
  version: Type.Literal(FORMAT_VERSION),
  snapshot: Type.Object({
    sourceName: Type.String(),
    sourceId: Type.String(),
    sourceUp: Type.Boolean(),
    completedAtMs: Type.Number(),
    startedAtMs: Type.Optional(Type.Number({ minimum: 0 })),
    buckets: Type.Array(Type.Unknown()),
    outsideBucketsBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    // Checked on its own (user-usage.ts): a bad per-user part costs only itself. Files written
    // before it existed have none.
    users: Type.Optional(Type.Unknown()),
  }),
})

// A stored snapshot must be a snapshot: this fails to compile if the record's schema and the
// snapshot types drift apart. (BucketUsage is derived from BucketUsageSchema, so a new per-bucket
// figure is stored and checked without an edit here.)
type StoredRecord = Static<typeof BucketRecordSchema>
type StoredSnapshot = Omit<Static<typeof StateFileSchema>['snapshot'], 'buckets' | 'users'> & {
  buckets: StoredRecord[]
  users?: Static<typeof UserScanSchema>
}
const schemaMatches: StoredSnapshot extends UsageSnapshot ? true : false = true
void schemaMatches

/** A bucket record left out of a snapshot read or written, and why. */
export interface RefusedRecord {
  readonly bucket: string
  readonly reason: string
}

/** Why a snapshot's completion time cannot be trusted at `nowMs`, or undefined. */
export function completedAtProblem(completedAtMs: number, nowMs: number): string | undefined {
  if (completedAtMs >= EARLIEST_MS && completedAtMs <= nowMs + CLOCK_SKEW_MS) return undefined
  return `completedAtMs ${completedAtMs} is not a time between ${new Date(EARLIEST_MS).toISOString()} and now`
}

/** Why a bucket record is not whole and in range (its name aside), or undefined. */
export function recordProblem(record: unknown, nowMs: number): string | undefined {
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
export function nameCounts(records: readonly unknown[]): Map<unknown, number> {
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
export function checkRecords(
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
