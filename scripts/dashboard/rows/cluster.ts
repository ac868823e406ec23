import { type RowSpec, targets, thresholds } from '../grafana.js'
import { colourOverride, fields, lastValue, stat, timeseries } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Cluster capacity" row. */
export function clusterRow({ at }: Queries): RowSpec {
  return {
    title: 'Cluster capacity',
    panels: [
      stat('Usable capacity', 'bytes', [{ expr: `sum(${at('cluster_capacity_usable_total_bytes')})` }], {
        description: 'Raw capacity of online drives times data/(data+parity) (EC_PARITY).',
      }),
      stat('Usable free', 'bytes', [{ expr: `sum(${at('cluster_capacity_usable_free_bytes')})` }]),
      {
        type: 'gauge',
        title: 'Usable capacity used',
        w: 4,
        h: 5,
        targets: targets([
          {
            expr: `1 - sum(${at('cluster_capacity_usable_free_bytes')}) / sum(${at('cluster_capacity_usable_total_bytes')})`,
          },
        ]),
        fieldConfig: fields({
          unit: 'percentunit',
          min: 0,
          max: 1,
          thresholds: thresholds(['green', null], ['orange', 0.85], ['red', 0.95]),
        }),
        options: { reduceOptions: lastValue(), showThresholdMarkers: true },
      },
      stat(
        'Drives online / offline',
        'short',
        [
          { expr: `sum(${at('cluster_drives_online')})`, legend: 'online' },
          { expr: `sum(${at('cluster_drives_offline')})`, legend: 'offline' },
        ],
        {
          overrides: [colourOverride('offline', thresholds(['green', null], ['red', 1]))],
        },
      ),
      stat('Buckets', 'short', [{ expr: `sum(${at('cluster_buckets')})` }], { w: 2 }),
      stat('Objects', 'short', [{ expr: `sum(${at('cluster_usage_objects')})` }], { w: 3 }),
      stat('Bucket data', 'bytes', [{ expr: `sum(${at('cluster_usage_total_bytes')})` }], {
        w: 3,
        description: 'Bytes of current objects over every measured bucket (from the last scan).',
      }),
      timeseries(
        'Capacity over time',
        'bytes',
        [
          { expr: `sum(${at('cluster_capacity_usable_total_bytes')})`, legend: 'usable total' },
          {
            expr: `sum(${at('cluster_capacity_usable_total_bytes')}) - sum(${at('cluster_capacity_usable_free_bytes')})`,
            legend: 'usable used',
          },
          { expr: `sum(${at('cluster_usage_total_bytes')})`, legend: 'bucket data' },
          { expr: `sum(${at('cluster_capacity_raw_total_bytes')})`, legend: 'raw total' },
        ],
        { w: 24, h: 7 },
      ),
    ],
  }
}
