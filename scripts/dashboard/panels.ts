import { type FieldConfig, type PanelSpec, type QuerySpec, targets, thresholds } from './grafana.js'

/** Panel builders shared by the dashboard's rows (rows/*.ts). */

export interface PanelOptions {
  readonly w?: number
  readonly h?: number
  readonly description?: string
  readonly min?: number
  readonly max?: number
  readonly mappings?: readonly unknown[]
  readonly thresholds?: FieldConfig['defaults']['thresholds']
  readonly thresholdsStyle?: FieldConfig['defaults']['thresholds']
  readonly overrides?: FieldConfig['overrides']
  /** Shown instead of "No data" when the queries return nothing: say which setting feeds the panel. */
  readonly noValue?: string
  /** Stack the series of a time series panel (parts of one whole). */
  readonly stacked?: boolean
}

function noValue(options: PanelOptions): { noValue?: string } {
  return options.noValue === undefined ? {} : { noValue: options.noValue }
}

export function fields(
  defaults: FieldConfig['defaults'],
  overrides: FieldConfig['overrides'] = [],
): FieldConfig {
  return { defaults, overrides }
}

export function lastValue() {
  return { calcs: ['lastNotNull'], fields: '', values: false }
}

function describe(options: PanelOptions): { description?: string } {
  return options.description === undefined ? {} : { description: options.description }
}

export function stat(
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

export function timeseries(
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
      ...noValue(options),
      custom: {
        drawStyle: 'line',
        lineWidth: 1,
        fillOpacity: options.stacked ? 60 : 10,
        showPoints: 'never',
        spanNulls: false,
        ...(options.stacked ? { stacking: { mode: 'normal', group: 'A' } } : {}),
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

export function bargauge(
  title: string,
  unit: string,
  expr: string,
  description?: string,
  legend = '{{bucket}}',
  options: PanelOptions = {},
): PanelSpec {
  return {
    type: 'bargauge',
    title,
    ...(description ? { description } : {}),
    w: options.w ?? 8,
    h: options.h ?? 8,
    targets: targets([{ expr, legend }]).map((target) => ({ ...target, instant: true, range: false })),
    fieldConfig: fields({
      unit,
      ...noValue(options),
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
export function table(
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
    fieldConfig: fields(
      { ...noValue(options), custom: { align: 'auto', filterable: true } },
      options.overrides ?? [],
    ),
    options: {
      showHeader: true,
      cellHeight: 'sm',
      ...(options.sortBy ? { sortBy: [{ displayName: options.sortBy, desc: true }] } : {}),
    },
  }
}

/** A full-width note at the top of a row (Grafana rows have no description of their own). */
export function note(title: string, markdown: string, h = 3): PanelSpec {
  return { type: 'text', title, w: 24, h, options: { mode: 'markdown', content: markdown } }
}

/** Seconds until the free bytes reach zero at the pace of the last 6 hours; +Inf when not shrinking. */
export function timeToFull(free: string): string {
  return `${free} / clamp_min(-deriv(${free}[6h]), 0)`
}

export function notFillingMapping() {
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

export function upDownMapping() {
  return zeroOneMapping('down', 'up')
}

/** A table column of a 0/1 series, shown as coloured words. */
export function stateColumn(column: string, zero: string, one: string) {
  return {
    matcher: { id: 'byName', options: column },
    properties: [
      { id: 'mappings', value: zeroOneMapping(zero, one) },
      { id: 'custom.cellOptions', value: { type: 'color-background' } },
    ],
  }
}

export function unitOverride(column: string, unit: string) {
  return { matcher: { id: 'byName', options: column }, properties: [{ id: 'unit', value: unit }] }
}

export function colourOverride(displayName: string, steps: FieldConfig['defaults']['thresholds']) {
  return {
    matcher: { id: 'byName', options: displayName },
    properties: [
      { id: 'thresholds', value: steps },
      { id: 'color', value: { mode: 'thresholds' } },
    ],
  }
}
