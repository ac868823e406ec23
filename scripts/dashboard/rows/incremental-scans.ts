import type { RowSpec } from '../grafana.js'
import { table, timeseries, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/**
 * The dashboard's "Incremental scans and change events" row (issue 25): the key ranges of the
 * buckets that keep per-range subtotals, how stale the stalest is, how much of each bucket a round
 * listed again, and what POST /events received. Empty for an exporter without subtotals
 * (SCAN_FULL_EVERY=1, or buckets below SCAN_SUBTOTALS_MIN_OBJECTS) or without EVENTS_AUTH_TOKEN.
 */
export function incrementalScansRow({ at, b }: Queries): RowSpec {
  const rate = (series: string) => `rate(${series}[$__rate_interval])`
  return {
    title: 'Incremental scans and change events',
    panels: [
      table(
        'Key ranges per bucket',
        [
          { expr: b('bucket_ranges') },
          { expr: b('bucket_ranges_dirty') },
          { expr: b('bucket_ranges_relisted_ratio') },
          { expr: `time() - ${b('bucket_ranges_oldest_listed_timestamp_seconds')}` },
        ],
        ['Ranges', 'Dirty', 'Listed again', 'Oldest subtotal age'],
        {
          w: 12,
          h: 8,
          description:
            'Buckets with per-range subtotals: their ranges, those marked dirty for the next round, the share of the bucket its last round listed again, and how long ago its stalest range was listed (the age of its figures).',
          overrides: [unitOverride('Listed again', 'percentunit'), unitOverride('Oldest subtotal age', 's')],
          sortBy: 'Oldest subtotal age',
        },
      ),
      timeseries(
        'Share listed again per bucket',
        'percentunit',
        [{ expr: `topk(10, ${b('bucket_ranges_relisted_ratio')})`, legend: '{{bucket}}' }],
        {
          w: 12,
          h: 8,
          min: 0,
          max: 1,
          description:
            'What each round cost against a full pass: about 1/SCAN_FULL_EVERY with rotation alone, more where change events marked ranges dirty.',
        },
      ),
      timeseries(
        'Change events',
        'short',
        [
          {
            expr: `sum by (instance) (${rate(at('events_received_total'))})`,
            legend: '{{instance}} received/s',
          },
          {
            expr: `sum by (instance) (${rate(at('events_applied_total'))})`,
            legend: '{{instance}} applied/s',
          },
          {
            expr: `sum by (instance, reason) (${rate(at('events_refused_total'))})`,
            legend: '{{instance}} refused {{reason}}/s',
          },
        ],
        {
          w: 12,
          h: 8,
          description:
            'Records POST /events read, applied and refused by reason: unauthorized is a sender with a wrong token, not_scanned notifications on buckets the selection leaves out.',
        },
      ),
      timeseries(
        'Change events per bucket',
        'short',
        [
          { expr: `topk(10, ${rate(b('bucket_events_applied_total'))})`, legend: '{{bucket}} applied/s' },
          {
            expr: `topk(10, ${rate(b('bucket_events_refused_total'))})`,
            legend: '{{bucket}} refused {{reason}}/s',
          },
        ],
        { w: 12, h: 8, description: 'The buckets the events come from (measured buckets only).' },
      ),
    ],
  }
}
