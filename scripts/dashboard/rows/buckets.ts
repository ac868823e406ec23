import { type RowSpec, targets } from '../grafana.js'
import { bargauge, fields, table, timeseries, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Buckets" row. */
export function bucketsRow({ m, b, bucketSel }: Queries): RowSpec {
  return {
    title: 'Buckets',
    panels: [
      bargauge('Top buckets by size', 'bytes', `topk(10, ${b('bucket_usage_total_bytes')})`),
      bargauge(
        'Top buckets by growth (24h)',
        'bytes',
        `topk(10, delta(${b('bucket_usage_total_bytes')}[1d]))`,
        'Change of the bucket size over the last day; negative when data was deleted or expired.',
      ),
      timeseries('Bucket size', 'bytes', [
        { expr: `topk(20, ${b('bucket_usage_total_bytes')})`, legend: '{{bucket}}' },
      ]),
      timeseries('Objects per bucket', 'short', [
        { expr: `topk(20, ${b('bucket_usage_objects')})`, legend: '{{bucket}}' },
      ]),
      {
        type: 'heatmap',
        title: 'Object size distribution',
        description:
          'Current objects per size bucket of the exporter histogram, over the selected buckets. A snapshot of each scan, not a rate.',
        w: 12,
        h: 8,
        targets: targets([
          {
            expr: `sum by (le) (${m('bucket_object_size_bytes')}_bucket${bucketSel})`,
            legend: '{{le}}',
            heatmap: true,
          },
        ]),
        options: {
          calculate: false,
          yAxis: { unit: 'bytes' },
          cellGap: 1,
          color: { mode: 'scheme', scheme: 'Oranges', scale: 'exponential', exponent: 0.5 },
          rowsFrame: { layout: 'auto' },
          tooltip: { mode: 'single', yHistogram: true },
        },
        fieldConfig: fields({}),
      },
      timeseries(
        'Object size quantiles',
        'bytes',
        [0.5, 0.9, 0.99].map((q) => ({
          expr: `histogram_quantile(${q}, sum by (le) (${m('bucket_object_size_bytes')}_bucket${bucketSel}))`,
          legend: `p${Math.round(q * 100)}`,
        })),
        { description: 'Estimated from the histogram (histogram_quantile), over the selected buckets.' },
      ),
      bargauge(
        'Objects per MinIO size range',
        'short',
        `sum by (range) (${m('bucket_objects_size_distribution')}{job=~"$job", instance=~"$instance", bucket=~"$bucket", range!="BETWEEN_1024B_AND_1_MB"})`,
        'MinIO-compatible ranges; the aggregate BETWEEN_1024B_AND_1_MB is left out so the bars add up.',
        '{{range}}',
      ),
      timeseries('Bytes per storage class', 'bytes', [
        {
          expr: `sum by (storage_class) (${b('bucket_storage_class_bytes')})`,
          legend: '{{storage_class}}',
        },
      ]),
      table(
        'Versions (SCAN_VERSIONS)',
        [
          { expr: b('bucket_usage_versions') },
          { expr: b('bucket_usage_deletemarkers') },
          { expr: b('bucket_noncurrent_bytes') },
        ],
        ['Versions', 'Delete markers', 'Noncurrent bytes'],
        { w: 12, h: 8, overrides: [unitOverride('Noncurrent bytes', 'bytes')] },
      ),
      table(
        'Quota',
        [
          { expr: b('bucket_quota_total_bytes') },
          { expr: `${b('bucket_usage_total_bytes')} / ${b('bucket_quota_total_bytes')}` },
        ],
        ['Quota', 'Used'],
        {
          w: 12,
          h: 8,
          description: 'Only buckets whose source reports a quota.',
          overrides: [unitOverride('Quota', 'bytes'), unitOverride('Used', 'percentunit')],
          sortBy: 'Used',
        },
      ),
    ],
  }
}
