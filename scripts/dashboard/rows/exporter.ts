import { type RowSpec, thresholds } from '../grafana.js'
import { stat, table, timeseries, upDownMapping } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Exporter" row. */
export function exporterRow({ at, sel }: Queries): RowSpec {
  return {
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
      timeseries('Log shipping', 'short', [
        {
          expr: `rate(${at('logger_sent_total')}[$__rate_interval])`,
          legend: '{{instance}} {{target}} sent/s',
        },
        {
          expr: `rate(${at('logger_failed_total')}[$__rate_interval])`,
          legend: '{{instance}} {{target}} failed/s',
        },
        {
          expr: `rate(${at('logger_dropped_total')}[$__rate_interval])`,
          legend: '{{instance}} {{target}} dropped/s',
        },
        { expr: at('logger_queue_entries'), legend: '{{instance}} {{target}} queued' },
      ]),
    ],
  }
}
