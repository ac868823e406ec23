import type { CatalogueName } from '../../src/collectors/catalogue.js'
import { fullName } from '../../src/metrics/families.js'
import {
  DATASOURCE,
  type Dashboard,
  type FieldConfig,
  layout,
  type PanelSpec,
  type QuerySpec,
  type RowSpec,
  targets,
  thresholds,
  type Variable,
} from './grafana.js'

/**
 * The objstore-exporter dashboard, as code. Metric names come from the catalogue by name, so a
 * family that does not exist fails type-checking, and another METRICS_NAMESPACE is one argument.
 *
 * Conventions: every query filters on `$job` and `$instance`; bucket queries also on `$bucket`.
 * Sums over instances are exact for bucket families (SHARD gives each bucket to one instance)
 * and for drives (each instance reports its own DRIVES).
 */
export function buildDashboard(namespace = 'objstore'): Dashboard {
  const m = (key: CatalogueName) => fullName(namespace, key)
  const sel = '{job=~"$job", instance=~"$instance"}'
  const bucketSel = '{job=~"$job", instance=~"$instance", bucket=~"$bucket"}'
  const at = (key: CatalogueName, selector = sel) => `${m(key)}${selector}`
  const b = (key: CatalogueName) => at(key, bucketSel)

  const rows: RowSpec[] = [
    {
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
            { expr: `sum(${at('cluster_drive_online_total')})`, legend: 'online' },
            { expr: `sum(${at('cluster_drive_offline_total')})`, legend: 'offline' },
          ],
          {
            overrides: [colourOverride('offline', thresholds(['green', null], ['red', 1]))],
          },
        ),
        stat('Buckets', 'short', [{ expr: `sum(${at('cluster_bucket_total')})` }], { w: 2 }),
        stat('Objects', 'short', [{ expr: `sum(${at('cluster_usage_object_total')})` }], { w: 3 }),
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
    },
    {
      title: 'Drives',
      panels: [
        table(
          'Drives',
          [
            { expr: at('node_drive_total_bytes') },
            { expr: at('node_drive_free_bytes') },
            { expr: `${at('node_drive_free_bytes')} / ${at('node_drive_total_bytes')}` },
            { expr: timeToFull(at('node_drive_free_bytes')) },
            { expr: at('node_drive_online') },
          ],
          ['Total', 'Free', 'Free ratio', 'Time to full', 'Online'],
          {
            w: 24,
            h: 8,
            description:
              'Time to full: at the pace of the last 6 hours; "not filling" when free space is not shrinking.',
            overrides: [
              unitOverride('Total', 'bytes'),
              unitOverride('Free', 'bytes'),
              {
                matcher: { id: 'byName', options: 'Free ratio' },
                properties: [
                  { id: 'unit', value: 'percentunit' },
                  { id: 'custom.cellOptions', value: { type: 'gauge', mode: 'basic' } },
                  { id: 'min', value: 0 },
                  { id: 'max', value: 1 },
                  { id: 'thresholds', value: thresholds(['red', null], ['orange', 0.05], ['green', 0.1]) },
                ],
              },
              {
                matcher: { id: 'byName', options: 'Time to full' },
                properties: [
                  { id: 'unit', value: 's' },
                  { id: 'mappings', value: [notFillingMapping()] },
                ],
              },
              stateColumn('Online', 'offline', 'online'),
            ],
          },
        ),
        timeseries(
          'Drive free ratio',
          'percentunit',
          [
            {
              expr: `${at('node_drive_free_bytes')} / ${at('node_drive_total_bytes')}`,
              legend: '{{instance}} {{drive}}',
            },
          ],
          {
            min: 0,
            max: 1,
            thresholdsStyle: thresholds(['red', null], ['orange', 0.05], ['transparent', 0.1]),
          },
        ),
        timeseries('Drive free bytes, with the 24-hour prediction', 'bytes', [
          { expr: at('node_drive_free_bytes'), legend: '{{instance}} {{drive}}' },
          {
            expr: `predict_linear(${at('node_drive_free_bytes')}[6h], 24 * 3600)`,
            legend: '{{instance}} {{drive}} in 24h',
          },
        ]),
        timeseries(
          'Drive inodes free ratio',
          'percentunit',
          [
            {
              expr: `${at('node_drive_free_inodes')} / ${at('node_drive_total_inodes')}`,
              legend: '{{instance}} {{drive}}',
            },
          ],
          { min: 0, max: 1, w: 24, h: 6 },
        ),
      ],
    },
    {
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
          { expr: `topk(20, ${b('bucket_usage_object_total')})`, legend: '{{bucket}}' },
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
            { expr: b('bucket_usage_version_total') },
            { expr: b('bucket_usage_deletemarker_total') },
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
    },
    {
      title: 'Backups and uploads',
      panels: [
        table(
          'Backup freshness',
          [
            { expr: `time() - ${b('bucket_newest_object_timestamp_seconds')}` },
            { expr: `time() - ${b('bucket_oldest_object_timestamp_seconds')}` },
            { expr: `max by (bucket) (objstore:bucket_backup_max_age_seconds{bucket=~"$bucket"})` },
          ],
          ['Newest object age', 'Oldest object age', 'Alert threshold'],
          {
            w: 12,
            h: 8,
            description:
              'Age of the newest object per bucket: a backup bucket whose newest object is old has missed its backups. Thresholds are the objstore:bucket_backup_max_age_seconds recording rules of config/alerts.yml.',
            overrides: [
              unitOverride('Newest object age', 's'),
              unitOverride('Oldest object age', 's'),
              unitOverride('Alert threshold', 's'),
            ],
            sortBy: 'Newest object age',
          },
        ),
        table(
          'Incomplete multipart uploads',
          [
            { expr: b('bucket_multipart_uploads_incomplete') },
            { expr: `time() - ${b('bucket_multipart_oldest_initiated_timestamp_seconds')}` },
          ],
          ['Incomplete uploads', 'Oldest started'],
          {
            w: 12,
            h: 8,
            description:
              'Uploads neither completed nor aborted: their parts use space that bucket usage does not show. A lifecycle rule AbortIncompleteMultipartUpload cleans them up.',
            overrides: [unitOverride('Oldest started', 's')],
            sortBy: 'Incomplete uploads',
          },
        ),
        timeseries(
          'Incomplete multipart uploads over time',
          'short',
          [{ expr: `topk(10, ${b('bucket_multipart_uploads_incomplete')})`, legend: '{{bucket}}' }],
          { w: 24, h: 6 },
        ),
      ],
    },
    {
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
        stat('Usage snapshot age', 's', [{ expr: `max(${at('usage_last_activity_nano_seconds')}) / 1e9` }], {
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
    },
    {
      title: 'Exporter',
      panels: [
        stat('Targets up', 'short', [{ expr: `up${sel}`, legend: '{{instance}}' }], {
          w: 6,
          h: 4,
          mappings: upDownMapping(),
          thresholds: thresholds(['red', null], ['green', 1]),
        }),
        table('Build', [{ expr: at('exporter_build_info') }], ['Build info'], {
          w: 18,
          h: 4,
          hideValue: true,
        }),
        timeseries(
          'Collector success',
          'short',
          [{ expr: at('scrape_collector_success'), legend: '{{instance}} {{collector}}' }],
          { min: 0, max: 1 },
        ),
        timeseries('Collector duration', 's', [
          { expr: at('scrape_collector_duration_seconds'), legend: '{{instance}} {{collector}}' },
        ]),
        timeseries('Memory', 'bytes', [
          { expr: `process_resident_memory_bytes${sel}`, legend: '{{instance}} resident' },
          { expr: `nodejs_heap_size_used_bytes${sel}`, legend: '{{instance}} heap used' },
        ]),
        timeseries('CPU', 'percentunit', [
          { expr: `rate(process_cpu_seconds_total${sel}[$__rate_interval])`, legend: '{{instance}}' },
        ]),
        timeseries('Event loop lag (p99)', 's', [
          { expr: `nodejs_eventloop_lag_p99_seconds${sel}`, legend: '{{instance}}' },
        ]),
        timeseries('Log shipping (HTTP target)', 'short', [
          { expr: `rate(${at('logger_http_sent_total')}[$__rate_interval])`, legend: '{{instance}} sent/s' },
          {
            expr: `rate(${at('logger_http_failed_total')}[$__rate_interval])`,
            legend: '{{instance}} failed/s',
          },
          {
            expr: `rate(${at('logger_http_dropped_total')}[$__rate_interval])`,
            legend: '{{instance}} dropped/s',
          },
          { expr: at('logger_http_queue_entries'), legend: '{{instance}} queued' },
        ]),
      ],
    },
  ]

  return {
    uid: namespace === 'objstore' ? 'objstore-exporter' : `objstore-exporter-${namespace}`,
    title: namespace === 'objstore' ? 'Object storage' : `Object storage (${namespace})`,
    description:
      'Capacity of drives and clusters, bucket usage, backup freshness, incomplete uploads and scan health, from objstore-exporter.',
    tags: ['objstore-exporter', 'storage', 's3'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '1m',
    time: { from: 'now-24h', to: 'now' },
    timepicker: {},
    timezone: '',
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    links: [],
    templating: { list: variables(m('exporter_build_info'), m('bucket_usage_total_bytes')) },
    panels: layout(rows),
  }
}

function variables(buildInfo: string, bucketUsage: string): Variable[] {
  const query = (name: string, label: string, definition: string, allValue: string): Variable => ({
    type: 'query',
    name,
    label,
    query: definition,
    definition,
    datasource: DATASOURCE,
    includeAll: true,
    multi: true,
    allValue,
    refresh: 2,
    sort: 1,
    current: { selected: true, text: ['All'], value: ['$__all'] },
    hide: 0,
    regex: '',
  })
  return [
    {
      type: 'datasource',
      name: 'datasource',
      label: 'Data source',
      query: 'prometheus',
      refresh: 1,
      current: {},
      hide: 0,
      regex: '',
    },
    query('job', 'Job', `label_values(${buildInfo}, job)`, '.+'),
    query('instance', 'Instance', `label_values(${buildInfo}{job=~"$job"}, instance)`, '.+'),
    query(
      'bucket',
      'Bucket',
      `label_values(${bucketUsage}{job=~"$job", instance=~"$instance"}, bucket)`,
      '.*',
    ),
  ]
}

interface PanelOptions {
  readonly w?: number
  readonly h?: number
  readonly description?: string
  readonly min?: number
  readonly max?: number
  readonly mappings?: readonly unknown[]
  readonly thresholds?: FieldConfig['defaults']['thresholds']
  readonly thresholdsStyle?: FieldConfig['defaults']['thresholds']
  readonly overrides?: FieldConfig['overrides']
}

function fields(defaults: FieldConfig['defaults'], overrides: FieldConfig['overrides'] = []): FieldConfig {
  return { defaults, overrides }
}

function lastValue() {
  return { calcs: ['lastNotNull'], fields: '', values: false }
}

function describe(options: PanelOptions): { description?: string } {
  return options.description === undefined ? {} : { description: options.description }
}

function stat(
  title: string,
  unit: string,
  queries: readonly QuerySpec[],
  options: PanelOptions = {},
): PanelSpec {
  return {
    type: 'stat',
    title,
    ...describe(options),
    w: options.w ?? 4,
    h: options.h ?? 5,
    targets: targets(queries),
    fieldConfig: fields(
      {
        unit,
        color: { mode: 'thresholds' },
        thresholds: options.thresholds ?? thresholds(['blue', null]),
        ...(options.mappings ? { mappings: options.mappings } : {}),
      },
      options.overrides,
    ),
    options: {
      reduceOptions: lastValue(),
      colorMode: 'value',
      graphMode: 'area',
      justifyMode: 'auto',
      textMode: 'auto',
      orientation: 'auto',
    },
  }
}

function timeseries(
  title: string,
  unit: string,
  queries: readonly QuerySpec[],
  options: PanelOptions = {},
): PanelSpec {
  return {
    type: 'timeseries',
    title,
    ...describe(options),
    w: options.w ?? 12,
    h: options.h ?? 8,
    targets: targets(queries),
    fieldConfig: fields({
      unit,
      ...(options.min === undefined ? {} : { min: options.min }),
      ...(options.max === undefined ? {} : { max: options.max }),
      custom: {
        drawStyle: 'line',
        lineWidth: 1,
        fillOpacity: 10,
        showPoints: 'never',
        spanNulls: false,
        ...(options.thresholdsStyle ? { thresholdsStyle: { mode: 'area' } } : {}),
      },
      ...(options.thresholdsStyle ? { thresholds: options.thresholdsStyle } : {}),
    }),
    options: {
      legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull'], showLegend: true },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  }
}

function bargauge(
  title: string,
  unit: string,
  expr: string,
  description?: string,
  legend = '{{bucket}}',
): PanelSpec {
  return {
    type: 'bargauge',
    title,
    ...(description ? { description } : {}),
    w: 8,
    h: 8,
    targets: targets([{ expr, legend }]).map((target) => ({ ...target, instant: true, range: false })),
    fieldConfig: fields({
      unit,
      min: 0,
      color: { mode: 'continuous-BlPu' },
      thresholds: thresholds(['blue', null]),
    }),
    options: {
      reduceOptions: lastValue(),
      orientation: 'horizontal',
      displayMode: 'gradient',
      showUnfilled: true,
      valueMode: 'color',
    },
  }
}

interface TableOptions extends PanelOptions {
  /** Sort descending by this column. */
  readonly sortBy?: string
  /** Show only the labels (build info is all labels). */
  readonly hideValue?: boolean
}

/**
 * One instant query per column, merged into one row per series (drive, bucket). The columns are
 * named in query order; the labels Prometheus adds (job, __name__) and the time are hidden.
 */
function table(
  title: string,
  queries: readonly QuerySpec[],
  columns: readonly string[],
  options: TableOptions,
): PanelSpec {
  if (columns.length !== queries.length) throw new Error(`table "${title}": one column name per query`)
  const specs = targets(queries.map((query) => ({ ...query, table: true })))
  const renameByName = Object.fromEntries(
    specs.map((target, index) => [specs.length === 1 ? 'Value' : `Value #${target.refId}`, columns[index]]),
  )
  return {
    type: 'table',
    title,
    ...describe(options),
    w: options.w ?? 12,
    h: options.h ?? 8,
    targets: specs,
    transformations: [
      ...(specs.length > 1 ? [{ id: 'merge', options: {} }] : []),
      {
        id: 'organize',
        options: {
          excludeByName: {
            Time: true,
            __name__: true,
            job: true,
            ...(options.hideValue ? { Value: true } : {}),
          },
          renameByName,
        },
      },
    ],
    fieldConfig: fields({ custom: { align: 'auto', filterable: true } }, options.overrides ?? []),
    options: {
      showHeader: true,
      cellHeight: 'sm',
      ...(options.sortBy ? { sortBy: [{ displayName: options.sortBy, desc: true }] } : {}),
    },
  }
}

/** Seconds until the free bytes reach zero at the pace of the last 6 hours; +Inf when not shrinking. */
function timeToFull(free: string): string {
  return `${free} / clamp_min(-deriv(${free}[6h]), 0)`
}

function notFillingMapping() {
  // Ten years or more (+Inf when free space is not shrinking) reads better as words.
  return {
    type: 'range',
    options: { from: 315360000, to: null, result: { text: 'not filling', color: 'green' } },
  }
}

/** Value mappings of a 0/1 series: 0 in red, 1 in green, with words. */
function zeroOneMapping(zero: string, one: string) {
  return [
    { type: 'value', options: { '0': { text: zero, color: 'red' }, '1': { text: one, color: 'green' } } },
  ]
}

function upDownMapping() {
  return zeroOneMapping('down', 'up')
}

/** A table column of a 0/1 series, shown as coloured words. */
function stateColumn(column: string, zero: string, one: string) {
  return {
    matcher: { id: 'byName', options: column },
    properties: [
      { id: 'mappings', value: zeroOneMapping(zero, one) },
      { id: 'custom.cellOptions', value: { type: 'color-background' } },
    ],
  }
}

function unitOverride(column: string, unit: string) {
  return { matcher: { id: 'byName', options: column }, properties: [{ id: 'unit', value: unit }] }
}

function colourOverride(displayName: string, steps: FieldConfig['defaults']['thresholds']) {
  return {
    matcher: { id: 'byName', options: displayName },
    properties: [
      { id: 'thresholds', value: steps },
      { id: 'color', value: { mode: 'thresholds' } },
    ],
  }
}
