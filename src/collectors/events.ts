import type { EventCounts } from '../events/counters.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
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
})

/** The endpoint's counters, read (no I/O) at scrape time. */
export function createEventsCollector(counts: () => EventCounts): Collector<typeof eventFamilies> {
  return {
    name: 'events',
    families: eventFamilies,
    collect(out: MetricSet<typeof eventFamilies>) {
      const { received, applied, refused } = counts()
      out.set('events_received_total', {}, received)
      out.set('events_applied_total', {}, applied)
      for (const [reason, count] of refused) out.set('events_refused_total', { reason }, count)
    },
  }
}
