import type { EventCounts } from '../events/counters.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { RecordsByName } from '../snapshot/snapshot.js'
import type { Collector } from './types.js'

/**
 * What `POST /events` received (EVENTS_AUTH_TOKEN set): S3 event notification records read,
 * handed on, and refused by reason. Present only while the endpoint is on.
 */
export const eventFamilies = describe('scanner', {
  events_received_total: family(
    'counter',
    [],
    'S3 event notification records read from deliveries to POST /events (authorized, within bounds, a well-formed document).',
  ),
  events_applied_total: family(
    'counter',
    [],
    'Of those, the records that named a change (a write, a removal, an expiration or transition) of a scanned bucket and were handed on: the key is re-listed by the next round, which starts early (EVENTS_DEBOUNCE_SECONDS).',
  ),
  events_refused_total: family(
    'counter',
    ['reason'],
    'Records refused, and deliveries refused whole (counted once), by reason: unauthorized, too_large, malformed, too_many_records, invalid_record, not_a_change (a read, tagging...), not_scanned (a bucket the selection leaves out), sns_topic (not in EVENTS_SNS_TOPIC_ARNS), sns_signature, sns_certificate (the signing certificate could not be fetched), sns_confirmation (confirming a subscription failed).',
  ),
  bucket_events_received_total: family(
    'counter',
    ['bucket'],
    "Records of events_received_total that named the bucket, for a bucket the exporter measures (in its current figures) once its first record came; a name no measured bucket has (a sender's choice) is counted only in the totals.",
    'scan',
  ),
  bucket_events_applied_total: family(
    'counter',
    ['bucket'],
    "Of the bucket's records, those applied: its next round lists the key's range again (or the bucket, when listed whole).",
    'scan',
  ),
  bucket_events_refused_total: family(
    'counter',
    ['bucket', 'reason'],
    "Of the bucket's records, those refused, by reason: invalid_record (the key unreadable or over 1,024 bytes), not_a_change (a read, tagging...).",
    'scan',
  ),
})

/**
 * The endpoint's counters, read (no I/O) at scrape time; per bucket for the buckets of the current
 * figures only (`measured`), so a bucket deleted or left out since has no series.
 */
export function createEventsCollector(
  counts: () => EventCounts,
  measured: () => RecordsByName,
  /** Whether BUCKET_METRICS writes the `scan` group, whose per-bucket families these are. */
  perBucket = true,
): Collector<typeof eventFamilies> {
  return {
    name: 'events',
    families: eventFamilies,
    collect(out: MetricSet<typeof eventFamilies>) {
      const { received, applied, refused, buckets } = counts()
      out.set('events_received_total', {}, received)
      out.set('events_applied_total', {}, applied)
      for (const [reason, count] of refused) out.set('events_refused_total', { reason }, count)
      if (!perBucket) return
      const records = measured()
      for (const [name, counted] of buckets) {
        if (records.get(name) === undefined) continue
        const bucket = { bucket: name }
        out.set('bucket_events_received_total', bucket, counted.received)
        out.set('bucket_events_applied_total', bucket, counted.applied)
        for (const [reason, count] of counted.refused)
          out.set('bucket_events_refused_total', { bucket: name, reason }, count)
      }
    },
  }
}
