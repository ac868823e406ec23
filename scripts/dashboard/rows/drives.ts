import { type RowSpec, thresholds } from '../grafana.js'
import { notFillingMapping, stateColumn, table, timeseries, timeToFull, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Drives" row. */
export function drivesRow({ at }: Queries): RowSpec {
  return {
    title: 'Drives',
    panels: [
      table(
        'Drives',
        [
          { expr: at('node_drive_total_bytes') },
          { expr: at('node_drive_free_bytes') },
          {
            expr: `${at('node_drive_free_bytes')} / (${at('node_drive_used_bytes')} + ${at('node_drive_free_bytes')})`,
          },
          { expr: timeToFull(at('node_drive_free_bytes')) },
          { expr: at('node_drive_online') },
        ],
        ['Total', 'Free', 'Free ratio', 'Time to full', 'Online'],
        {
          w: 24,
          h: 8,
          description:
            'Free ratio: available / (used + available), as df computes Use% (blocks reserved for root count in neither). Time to full: at the pace of the last 6 hours; "not filling" when free space is not shrinking.',
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
            expr: `${at('node_drive_free_bytes')} / (${at('node_drive_used_bytes')} + ${at('node_drive_free_bytes')})`,
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
  }
}
