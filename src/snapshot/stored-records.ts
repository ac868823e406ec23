import type { BucketRanges } from '../sources/subtotals.js'
import type { BucketUsage } from '../sources/types.js'
import type { BucketRecord } from './snapshot.js'

/**
 * Records loaded from the state file keep their figures as the bytes of their line, outside the
 * JavaScript heap, and decode them only when asked, through figuresOf(). Parsed whole, 100,000
 * records are some 200 MB of heap (about 70 objects each) built in a second and a half: the
 * collections that copy and mark them held the event loop 30-110 ms at a time while the file
 * loaded. Stored, a record is a few objects and a view of its bytes, and the figures decoded for a
 * reader die young. Until the first scan round replaces them, a pass over the snapshot's figures
 * on the event loop (the render's totals) decodes each record again, some 10 µs a record, in
 * slices; the render worker is sent the bytes and decodes them itself; the state file writer
 * writes them as they are.
 *
 * The decoding is explicit: a stored record has no `usage` property to enumerate, spread, clone
 * or write as JSON, and reading `usage` from it throws (a reader that forgot figuresOf() fails in
 * every test that loads a state file, instead of serving a bucket without figures).
 */
const LINE = Symbol('stored line')
/** The two figures passes over every bucket read (sums, the largest first), kept decoded. */
const BYTES = Symbol('stored bytes')
const OBJECTS = Symbol('stored objects')

type StoredRecord = BucketRecord & {
  readonly [LINE]: Buffer
  readonly [BYTES]: number
  readonly [OBJECTS]: number
}

const usageGuard: PropertyDescriptor = {
  get(this: StoredRecord): never {
    throw new TypeError(`bucket ${this.name}: a stored record's figures are read with figuresOf()`)
  },
  enumerable: false,
}

/**
 * A record's figures, undefined if it was never measured: a round's as they are, a stored
 * record's decoded from its line (a fresh copy on each call: read it once per pass).
 */
export function figuresOf(record: BucketRecord | undefined): BucketUsage | undefined {
  if (record === undefined) return undefined
  const line = storedLine(record)
  // The line's bytes were checked when loaded (recordProblem) and are never written again.
  return line ? (storedLineRecord(line).usage as BucketUsage) : record.usage
}

/**
 * `record` (checked, with figures) as a stored record whose figures are read from `line`, its
 * line's bytes in the chunk it was read into (state-file-lines.ts).
 */
export function storedRecord(record: BucketRecord, line: Buffer): BucketRecord {
  // Built in the state file's order (name, then the rest; usage only through figuresOf).
  const stored = { name: record.name } as { -readonly [K in keyof BucketRecord]: BucketRecord[K] }
  Object.defineProperty(stored, LINE, { value: line })
  Object.defineProperty(stored, BYTES, { value: record.usage?.bytes })
  Object.defineProperty(stored, OBJECTS, { value: record.usage?.objects })
  Object.defineProperty(stored, 'usage', usageGuard)
  stored.scanSuccess = record.scanSuccess
  stored.scanDurationSeconds = record.scanDurationSeconds
  if (record.lastSuccessSeconds !== undefined) stored.lastSuccessSeconds = record.lastSuccessSeconds
  if (record.ranges !== undefined) stored.ranges = record.ranges
  if (record.subtotals !== undefined) Object.defineProperty(stored, 'subtotals', subtotalsGuard)
  return stored
}

const subtotalsGuard: PropertyDescriptor = {
  get(this: StoredRecord): never {
    throw new TypeError(`bucket ${this.name}: a stored record's subtotals are read with subtotalsOf()`)
  },
  enumerable: false,
}

/** A record's per-range subtotals (a stored record's decoded from its line), undefined if it has none. */
export function subtotalsOf(record: BucketRecord | undefined): BucketRanges | undefined {
  if (record === undefined) return undefined
  const line = storedLine(record)
  if (!line) return record.subtotals
  return record.ranges === undefined ? undefined : storedLineRecord(line).subtotals
}

/** The bytes of `record`'s line if it is a stored record (its JSON, as the state file holds it). */
export function storedLine(record: BucketRecord): Buffer | undefined {
  return (record as Partial<StoredRecord>)[LINE]
}

/** The record a stored line holds (its bytes copied, as to a worker thread). */
export function storedLineRecord(line: Uint8Array): BucketRecord {
  return JSON.parse(
    Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8'),
  ) as BucketRecord
}

/**
 * A record's bytes, undefined if it was never measured: what a pass over every bucket reads (a
 * sum, a sort by size) without decoding a stored record's figures.
 */
export function measuredBytes(record: BucketRecord): number | undefined {
  return LINE in record ? (record as StoredRecord)[BYTES] : record.usage?.bytes
}

/** A record's object count, undefined if it was never measured (as measuredBytes). */
export function measuredObjects(record: BucketRecord): number | undefined {
  return LINE in record ? (record as StoredRecord)[OBJECTS] : record.usage?.objects
}
