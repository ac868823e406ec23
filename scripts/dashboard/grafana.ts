/**
 * A small typed model of the parts of Grafana's dashboard JSON this project uses (schema 39,
 * Grafana 10 and later), and a layout helper that places panels in rows of 24 columns. Enough
 * to write the dashboard as code without a dependency; Grafana fills in every omitted default.
 */

/** Grafana substitutes the datasource variable; the `$` is Grafana's, not a template literal's. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, kept literally.
export const DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const

export interface Target {
  readonly refId: string
  readonly expr: string
  readonly legendFormat?: string
  /** Table panels read one value per series at the dashboard's end time. */
  readonly instant?: boolean
  readonly range?: boolean
  readonly format?: 'time_series' | 'table' | 'heatmap'
  readonly datasource: typeof DATASOURCE
}

interface GridPos {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

type PanelType = 'row' | 'text' | 'stat' | 'gauge' | 'timeseries' | 'table' | 'bargauge' | 'heatmap'

export interface Panel {
  readonly id: number
  readonly type: PanelType
  readonly title: string
  readonly description?: string
  readonly gridPos: GridPos
  readonly datasource?: typeof DATASOURCE
  readonly targets?: readonly Target[]
  readonly fieldConfig?: FieldConfig
  readonly options?: Record<string, unknown>
  readonly transformations?: ReadonlyArray<{ readonly id: string; readonly options: Record<string, unknown> }>
  readonly collapsed?: boolean
  readonly panels?: readonly Panel[]
}

interface Threshold {
  readonly color: string
  readonly value: number | null
}

export interface FieldConfig {
  readonly defaults: {
    readonly unit?: string
    readonly min?: number
    readonly max?: number
    readonly decimals?: number
    /** What a panel shows when its queries return nothing (Grafana's "No value"). */
    readonly noValue?: string
    readonly color?: { readonly mode: string }
    readonly thresholds?: { readonly mode: 'absolute' | 'percentage'; readonly steps: readonly Threshold[] }
    readonly mappings?: readonly unknown[]
    readonly custom?: Record<string, unknown>
  }
  readonly overrides: ReadonlyArray<{
    readonly matcher: { readonly id: string; readonly options: string }
    readonly properties: ReadonlyArray<{ readonly id: string; readonly value: unknown }>
  }>
}

export interface Variable {
  readonly type: 'datasource' | 'query'
  readonly name: string
  readonly label: string
  readonly query: string
  readonly definition?: string
  readonly datasource?: typeof DATASOURCE
  readonly includeAll?: boolean
  readonly multi?: boolean
  readonly allValue?: string
  readonly refresh: 1 | 2
  readonly sort?: number
  readonly current: Record<string, unknown>
  readonly hide: 0
  readonly regex: string
}

export interface Dashboard {
  readonly uid: string
  readonly title: string
  readonly description: string
  readonly tags: readonly string[]
  readonly editable: boolean
  readonly graphTooltip: 1
  readonly schemaVersion: 39
  readonly version: 1
  readonly refresh: string
  readonly time: { readonly from: string; readonly to: string }
  readonly timepicker: Record<string, never>
  readonly timezone: ''
  readonly annotations: { readonly list: readonly unknown[] }
  readonly links: readonly unknown[]
  readonly templating: { readonly list: readonly Variable[] }
  readonly panels: readonly Panel[]
}

/** A query of a panel: `expr` with an optional legend; `table` makes it an instant table query. */
export interface QuerySpec {
  readonly expr: string
  readonly legend?: string
  readonly table?: boolean
  readonly heatmap?: boolean
}

export function targets(queries: readonly QuerySpec[]): Target[] {
  return queries.map((query, index) => ({
    refId: String.fromCharCode(65 + index),
    expr: query.expr,
    ...(query.legend === undefined ? {} : { legendFormat: query.legend }),
    ...(query.table ? { instant: true, range: false, format: 'table' as const } : {}),
    ...(query.heatmap ? { format: 'heatmap' as const } : {}),
    datasource: DATASOURCE,
  }))
}

/** What a panel looks like before layout gives it an id and a place. */
export type PanelSpec = Omit<Panel, 'id' | 'gridPos'> & { readonly w: number; readonly h: number }

export interface RowSpec {
  readonly title: string
  readonly panels: readonly PanelSpec[]
}

/**
 * Lays rows out top to bottom: each row header takes a full line, its panels fill lines of 24
 * columns left to right and wrap. Ids are assigned in reading order, so they are stable.
 */
export function layout(rows: readonly RowSpec[]): Panel[] {
  const panels: Panel[] = []
  let id = 1
  let y = 0
  for (const row of rows) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: 24, h: 1 },
    })
    y += 1
    let x = 0
    let lineHeight = 0
    for (const spec of row.panels) {
      if (spec.w > 24) throw new Error(`panel "${spec.title}" is wider than the grid`)
      if (x + spec.w > 24) {
        y += lineHeight
        x = 0
        lineHeight = 0
      }
      const { w, h, ...panel } = spec
      // A text panel queries nothing, so it has no datasource.
      const datasource = panel.type === 'text' ? {} : { datasource: DATASOURCE }
      panels.push({ ...panel, id: id++, gridPos: { x, y, w, h }, ...datasource })
      x += w
      lineHeight = Math.max(lineHeight, h)
    }
    y += lineHeight
  }
  return panels
}

export function thresholds(...steps: Array<[string, number | null]>): FieldConfig['defaults']['thresholds'] {
  return { mode: 'absolute', steps: steps.map(([color, value]) => ({ color, value })) }
}
