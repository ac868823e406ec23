import type { ObjectChange, RefusalReason } from './types.js'

/** Records one delivery may carry; a longer list is refused whole (stores send one per request). */
export const MAX_RECORDS_PER_DELIVERY = 1000

/** S3's bounds: a bucket name is at most 63 characters, a key at most 1,024 bytes. */
const MAX_BUCKET_LENGTH = 255
const MAX_KEY_BYTES = 1024

/** A delivery's records read: the changes, and the records refused with why. */
export interface ReadRecords {
  readonly changes: ObjectChange[]
  readonly refused: Map<RefusalReason, number>
  /** Of those refused, the ones whose bucket name could be read: for the per-bucket counts. */
  readonly refusedIn: BucketRefusal[]
  /** Records the delivery held (changes and refusals). */
  readonly received: number
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A record's key as the store sent it: URL-encoded with `+` for a space (AWS, MinIO and RGW
 * alike). Undefined when it does not decode (a stray `%`).
 */
function decodedKey(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded.replace(/\+/g, ' '))
  } catch {
    return undefined
  }
}

/**
 * Events that change what a listing shows: writes, removals (delete markers included), lifecycle
 * expirations and storage-class transitions (AWS `LifecycleTransition`, MinIO
 * `ObjectTransition:Complete`). Reads, tagging, ACLs and restores change no figure.
 */
const CHANGES = /^(ObjectCreated:|ObjectRemoved:|LifecycleExpiration:|LifecycleTransition$|ObjectTransition:)/

/** The event's name without MinIO's `s3:` prefix, `other` when it changes no figure; undefined when no name. */
function changeName(eventName: unknown): string | undefined {
  if (typeof eventName !== 'string' || eventName === '' || eventName.length > 128) return undefined
  const name = eventName.startsWith('s3:') ? eventName.slice(3) : eventName
  return CHANGES.test(name) ? name : 'other'
}

/** A record refused that names a bucket (a well-formed name: the key or the event is what is wrong). */
interface BucketRefusal {
  readonly bucket: string
  readonly reason: RefusalReason
}

/** One record read, or why it is refused (with its bucket when that could be read). */
function readRecord(record: unknown): ObjectChange | RefusalReason | BucketRefusal {
  if (!isObject(record)) return 'invalid_record'
  const name = changeName(record.eventName)
  if (name === undefined) return 'invalid_record'
  const s3 = record.s3
  if (!isObject(s3) || !isObject(s3.bucket) || !isObject(s3.object)) return 'invalid_record'
  const bucket = s3.bucket.name
  const encodedKey = s3.object.key
  if (typeof bucket !== 'string' || bucket === '' || bucket.length > MAX_BUCKET_LENGTH)
    return 'invalid_record'
  if (typeof encodedKey !== 'string' || encodedKey === '') return { bucket, reason: 'invalid_record' }
  const key = decodedKey(encodedKey)
  if (key === undefined || Buffer.byteLength(key) > MAX_KEY_BYTES) return { bucket, reason: 'invalid_record' }
  if (name === 'other') return { bucket, reason: 'not_a_change' }
  const { size, sequencer } = s3.object
  return {
    bucket,
    key,
    eventName: name,
    ...(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? { size } : {}),
    ...(typeof sequencer === 'string' && /^[0-9A-Fa-f]{1,64}$/.test(sequencer) ? { sequencer } : {}),
  }
}

/**
 * The records of one S3 event notification document, `{"Records": [...]}`, as MinIO's webhook,
 * Ceph RGW's push endpoint and AWS (inside an SNS message) send it; `malformed` when the document
 * is not one (no Records list). S3's `s3:TestEvent` message, sent when a configuration is saved, is a
 * document of no records. More than MAX_RECORDS_PER_DELIVERY records are refused whole.
 */
export function readRecords(document: unknown): ReadRecords | 'malformed' | 'too_many_records' {
  if (!isObject(document)) return 'malformed'
  if (document.Records === undefined && document.Event === 's3:TestEvent')
    return { changes: [], refused: new Map(), refusedIn: [], received: 0 }
  const records = document.Records
  if (!Array.isArray(records)) return 'malformed'
  if (records.length > MAX_RECORDS_PER_DELIVERY) return 'too_many_records'
  const changes: ObjectChange[] = []
  const refused = new Map<RefusalReason, number>()
  const refusedIn: BucketRefusal[] = []
  for (const record of records) {
    const read = readRecord(record)
    if (typeof read === 'string') refused.set(read, (refused.get(read) ?? 0) + 1)
    else if ('key' in read) changes.push(read)
    else {
      refused.set(read.reason, (refused.get(read.reason) ?? 0) + 1)
      refusedIn.push(read)
    }
  }
  return { changes, refused, refusedIn, received: records.length }
}
