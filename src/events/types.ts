/**
 * Who is told of a change: an object in a bucket was written or removed. An event never changes a
 * figure by itself (a delete carries no size on AWS and MinIO; an aborted multipart upload sends no
 * event): the listener only learns which key changed, and the scan re-lists what holds it.
 */
export interface ChangeListener {
  changed(bucket: string, key: string): void
}

/** One S3 event notification record, as read and checked from a delivery. */
export interface ObjectChange {
  readonly bucket: string
  /** Decoded (records carry it URL-encoded, `+` for a space). */
  readonly key: string
  /** `ObjectCreated:Put`, `ObjectRemoved:Delete`...: without MinIO's `s3:` prefix. */
  readonly eventName: string
  /** Bytes the record states: the new object's, or with RGW the deleted one's; absent on AWS and MinIO deletes. */
  readonly size?: number
  /** The store's order of events per key (hexadecimal), when sent. */
  readonly sequencer?: string
}

/** Why a delivery or a record was refused: the `reason` label of events_refused_total. */
export const REFUSAL_REASONS = [
  'unauthorized',
  'too_large',
  'malformed',
  'too_many_records',
  'invalid_record',
  'not_a_change',
  'not_scanned',
  'sns_topic',
  'sns_signature',
  'sns_certificate',
  'sns_confirmation',
] as const

export type RefusalReason = (typeof REFUSAL_REASONS)[number]
