import { type Static, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { BucketUsageSchema } from '../record/bucket-usage-schema.js'
import { usageInvariantProblem } from '../record/record-invariants.js'
import { type UserScan, type UserScanSchema, userScanProblem } from '../record/user-usage.js'
import { type BucketRecord, byName, type UsageSnapshot } from './snapshot.js'
import { BucketRangesSchema, RangeSummarySchema, subtotalsProblem } from './state-file-ranges.js'

/*
 * The state file's format: its outline, a bucket record's schema and the checks both the loader
 * and the writer apply, so a record the writer keeps is one the loader accepts.
 */

export const FORMAT = 'objstore-exporter/usage-snapshot'
/**
 * Version 2 is one JSON document a line: the header (format, version, the snapshot's outline and
 * per-user part), then one bucket record a line, then the end line (`{"end":true,"records":N}`),
 * so it is read and checked a slice at a time and a file cut short is told from a whole one.
 * Version 1, the whole snapshot as one JSON document, is still read (state-file-legacy.ts).
 */
export const FORMAT_VERSION = 3
export const LEGACY_VERSION = 1
/**
 * Version 2 is version 3 without per-range subtotals (issue 25): its records load as buckets
 * listed whole, and the next round writes version 3.
 */
const LINES_VERSIONS = [2, FORMAT_VERSION] as const

/** The bounds a file must keep to be read at all (a state file of 100,000 buckets is some 115 MB). */
export interface StateFileLimits {
  /** The longest line: the header holds the per-user part (up to USERS_LIMIT users). */
  readonly lineBytes: number
  readonly records: number
  readonly fileBytes: number
}
export const STATE_FILE_LIMITS: StateFileLimits = {
  lineBytes: 64 * 2 ** 20,
  records: 1_000_000,
  fileBytes: 2 ** 30,
}

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
  ranges: Type.Optional(RangeSummarySchema),
  subtotals: Type.Optional(BucketRangesSchema),
})
/** Compiled once: 10,000 records take some 30 ms to check this way, 370-750 ms interpreted. */
const bucketRecordCheck = TypeCompiler.Compile(BucketRecordSchema)

/** The snapshot's outline: all but its bucket records. */
const OutlineProperties = {
  sourceName: Type.String(),
  sourceId: Type.String(),
  sourceUp: Type.Boolean(),
  completedAtMs: Type.Number(),
  startedAtMs: Type.Optional(Type.Number({ minimum: 0 })),
  outsideBucketsBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  // Checked on its own (user-usage.ts): a bad per-user part costs only itself. Files written
  // before it existed have none.
  users: Type.Optional(Type.Unknown()),
}

/** Version 1's whole file; each record is checked on its own, so one bad record does not cost the rest. */
export const LegacyStateFileSchema = Type.Object({
  format: Type.Literal(FORMAT),
  version: Type.Literal(LEGACY_VERSION),
  snapshot: Type.Object({ ...OutlineProperties, buckets: Type.Array(Type.Unknown()) }),
})

/** Version 2's and 3's first line. */
const StateHeaderSchema = Type.Object({
  format: Type.Literal(FORMAT),
  version: Type.Union(LINES_VERSIONS.map((version) => Type.Literal(version))),
  snapshot: Type.Object(OutlineProperties),
})
export const stateHeaderCheck = TypeCompiler.Compile(StateHeaderSchema)

/** Version 2's last line: how many records the writer wrote, so a file cut at a line's end is told. */
const StateEndSchema = Type.Object({
  end: Type.Literal(true),
  records: Type.Integer({ minimum: 0 }),
})
export const stateEndCheck = TypeCompiler.Compile(StateEndSchema)

// A stored snapshot must be a snapshot: this fails to compile if the record's schema and the
// snapshot types drift apart. (BucketUsage is derived from BucketUsageSchema, so a new per-bucket
// figure is stored and checked without an edit here.)
type StoredRecord = Static<typeof BucketRecordSchema>
type StoredSnapshot = Omit<Static<typeof StateHeaderSchema>['snapshot'], 'users'> & {
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

/**
 * The records a read or a write left out: how many, and the first hundred by name with why (the
 * one warning shows ten). Only those are kept: a file of a million broken lines must cost what its
 * good records cost, not a reason string each (999,000 lines of `{}` peaked at 657 MB).
 */
export class RefusedRecords {
  static readonly NAMED = 100
  readonly named: RefusedRecord[] = []
  count = 0

  /** One more; `bucket` and `reason` are asked for only while fewer than NAMED are named. */
  add(bucket: () => string, reason: () => string): void {
    this.count++
    if (this.named.length < RefusedRecords.NAMED) this.named.push({ bucket: bucket(), reason: reason() })
  }
}

/** Why a snapshot's completion time cannot be trusted at `nowMs`, or undefined. */
export function completedAtProblem(completedAtMs: number, nowMs: number): string | undefined {
  if (completedAtMs >= EARLIEST_MS && completedAtMs <= nowMs + CLOCK_SKEW_MS) return undefined
  return `completedAtMs ${completedAtMs} is not a time between ${new Date(EARLIEST_MS).toISOString()} and now`
}

/** Whether a bucket record is whole, in range and possible (recordProblem says why not). */
export function recordValid(record: unknown, nowMs: number): record is BucketRecord {
  return recordProblem(record, nowMs, false) === undefined
}

/**
 * Why a bucket record is not whole, in range and possible (its name aside), or undefined. Without
 * `explain`, a schema failure is only said to be one: TypeBox's account of it costs far more than
 * the check, and a file may hold a million broken lines.
 */
export function recordProblem(record: unknown, nowMs: number, explain = true): string | undefined {
  if (!bucketRecordCheck.Check(record)) {
    if (!explain) return 'invalid'
    const first = bucketRecordCheck.Errors(record).First()
    return first ? `${first.path || '/'} = ${shown(first.value)}: ${first.message}` : 'unknown shape'
  }
  const seconds = record.lastSuccessSeconds
  if (seconds !== undefined && !(seconds >= EARLIEST_MS / 1000 && seconds <= (nowMs + CLOCK_SKEW_MS) / 1000))
    return `/lastSuccessSeconds = ${seconds}: not a time between 2000 and now`
  if (record.usage === undefined)
    return record.subtotals === undefined ? undefined : '/subtotals: without figures'
  return usageInvariantProblem(record.usage) ?? subtotalsProblem(record)
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
): { kept: BucketRecord[]; refused: RefusedRecords } {
  const counts = nameCounts(records)
  const kept: BucketRecord[] = []
  const refused = new RefusedRecords()
  records.forEach((record, index) => {
    const name = (record as BucketRecord | null)?.name
    if (!recordValid(record, nowMs))
      refused.add(
        () => (typeof name === 'string' ? name : `#${index + 1}`),
        () => `not a valid bucket record (${recordProblem(record, nowMs)})`,
      )
    else if (counts.get(name) === 1) kept.push(record)
  })
  for (const [name, count] of counts)
    if (count > 1 && typeof name === 'string')
      refused.add(
        () => name,
        () => `${count} records for the same bucket`,
      )
  kept.sort(byName)
  return { kept, refused }
}

/** A value as a reason shows it: numbers as JavaScript prints them (NaN, Infinity), the rest as JSON. */
function shown(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 80)}...` : text
}

export type StateLoad =
  | {
      readonly status: 'loaded'
      readonly snapshot: UsageSnapshot
      /** The first records refused, by name, with why (RefusedRecords.NAMED at most). */
      readonly refused: readonly RefusedRecord[]
      /** How many were refused. */
      readonly refusedCount: number
      /** Why the per-user part was left out, when it was. */
      readonly usersRefused?: string
    }
  | { readonly status: 'absent' }
  | { readonly status: 'ignored'; readonly reason: string }

type Outline = Static<typeof StateHeaderSchema>['snapshot']

/**
 * A loaded snapshot from a checked outline and its kept records, or why the file is ignored (another
 * source's, or a completion time out of range); a per-user part that fails its check is left out.
 */
export function loadedSnapshot(
  outline: Outline,
  kept: readonly BucketRecord[],
  refused: RefusedRecords,
  sourceId: string,
  nowMs: number,
): StateLoad {
  const reason = outlineProblem(outline, sourceId, nowMs)
  if (reason !== undefined) return { status: 'ignored', reason }
  const { users, ...rest } = outline
  const usersRefused = users === undefined ? undefined : userScanProblem(users)
  return {
    status: 'loaded',
    snapshot: {
      ...rest,
      buckets: kept,
      ...(users !== undefined && usersRefused === undefined ? { users: users as UserScan } : {}),
    },
    refused: refused.named,
    refusedCount: refused.count,
    ...(usersRefused === undefined ? {} : { usersRefused }),
  }
}

/** Why a snapshot with this outline is not one to serve here: another source's, or out of time. */
export function outlineProblem(outline: Outline, sourceId: string, nowMs: number): string | undefined {
  if (outline.sourceId !== sourceId)
    return `written for another source (${outline.sourceId}), not ${sourceId}`
  return completedAtProblem(outline.completedAtMs, nowMs)
}
