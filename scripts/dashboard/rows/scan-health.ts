import { type RowSpec, thresholds } from '../grafana.js'
import { stat, stateColumn, table, timeseries, unitOverride, upDownMapping } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Scan health" row. */
export function scanHealthRow({ at, b }: Queries): RowSpec {
  return {
    title: 'Scan health',
    panels: [
      table(
        'Scans per bucket',
        [
          { expr: b('bucket_scan_success') },
          { expr: b('bucket_scan_duration_seconds') },
          { expr: `time() - ${b('bucket_scan_last_success_timestamp_seconds')}` },
        ],
        ['Last scan', 'Duration', 'Since last success'],
        {
          w: 12,
          h: 8,
          overrides: [
            stateColumn('Last scan', 'failed', 'ok'),
            unitOverride('Duration', 's'),
            unitOverride('Since last success', 's'),
          ],
          sortBy: 'Since last success',
        },
      ),
      stat('Usage sources', 'short', [{ expr: at('source_up'), legend: '{{instance}} {{source}}' }], {
        w: 6,
        h: 4,
        mappings: upDownMapping(),
        thresholds: thresholds(['red', null], ['green', 1]),
      }),
      stat('Usage snapshot age', 's', [{ expr: `max(${at('usage_snapshot_age_seconds')})` }], {
        w: 6,
        h: 4,
        description: 'Time since the usage snapshot served was made (the last completed scan).',
        thresholds: thresholds(['green', null], ['orange', 1800], ['red', 3600]),
      }),
      timeseries(
        'Scan duration per bucket',
        's',
        [{ expr: `topk(10, ${b('bucket_scan_duration_seconds')})`, legend: '{{bucket}}' }],
        { w: 12, h: 4 },
      ),
    ],
  }
}
