import { RULE_PARAMETERS, type RuleParameters } from '../rules/parameters.js'
import { DATASOURCE, type Dashboard, layout, type RowSpec, type Variable } from './grafana.js'
import { queries } from './queries.js'
import { backupsRow } from './rows/backups.js'
import { bucketsRow } from './rows/buckets.js'
import { clusterRow } from './rows/cluster.js'
import { drivesRow } from './rows/drives.js'
import { exporterRow } from './rows/exporter.js'
import { forecastAndCostRow } from './rows/forecast-and-cost.js'
import { incrementalScansRow } from './rows/incremental-scans.js'
import { scanHealthRow } from './rows/scan-health.js'
import { whereTheBytesWentRow } from './rows/where-the-bytes-went.js'

/**
 * The objstore-exporter dashboard, as code: one file per row (rows/*.ts), panel builders in
 * panels.ts. Metric names come from the catalogue by name (queries.ts), so a family that does not
 * exist fails type-checking, and another METRICS_NAMESPACE is one argument.
 *
 * Conventions: every query filters on `$job` and `$instance`; bucket queries also on `$bucket`.
 * Sums over instances are exact for bucket families (SHARD gives each bucket to one instance)
 * and for drives (each instance reports its own DRIVES). Rows that read recording rules name them
 * from the rules generator's parameters (a window is part of a record's name): the defaults for
 * the committed JSON, short windows for the end-to-end test.
 */
export function buildDashboard(
  namespace = 'objstore',
  ruleParameters: RuleParameters = RULE_PARAMETERS,
): Dashboard {
  const q = queries(namespace)
  const { m } = q

  const rows: RowSpec[] = [
    clusterRow,
    drivesRow,
    bucketsRow,
    whereTheBytesWentRow,
    forecastAndCostRow,
    backupsRow,
    scanHealthRow,
    incrementalScansRow,
    exporterRow,
  ].map((row) => row(q, ruleParameters))

  return {
    uid: namespace === 'objstore' ? 'objstore-exporter' : `objstore-exporter-${namespace}`,
    title: namespace === 'objstore' ? 'Object storage' : `Object storage (${namespace})`,
    description:
      'Capacity of drives and clusters, bucket usage, where the bytes went (prefixes, ages, reclaimable bytes), backup freshness, incomplete uploads, scan health, incremental scans and change events, from objstore-exporter.',
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
