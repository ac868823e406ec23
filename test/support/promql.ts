import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { type Catalogue, type CatalogueName, catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { RUNTIME_FAMILY_PREFIXES } from '../../src/collectors/runtime.js'
import { exposedFamily, isHistogram } from '../../src/metrics/families.js'

/**
 * PromQL helpers for checking the dashboard and alert rules against the catalogue: which metric
 * names an expression selects, how Grafana's variables are filled in, and which names exist.
 * Parsing proper is left to Prometheus (promtool); this only needs to find the selectors.
 */

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'atan2',
  'inf',
  'nan',
])
/** Keywords followed by a parenthesised list of label names, not of expressions. */
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'])

/**
 * The metric names an expression selects: every identifier that is not a function or an
 * aggregation (followed by `(`), a keyword, a label name inside `{...}` or in a `by (...)` list,
 * or part of a string, number, duration or `[range]`.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>()
  let i = 0
  let braceDepth = 0
  const next = () => expr[i] ?? ''
  while (i < expr.length) {
    const char = next()
    if (char === '"' || char === "'" || char === '`') {
      i = skipString(expr, i)
      continue
    }
    if (char === '#') {
      while (i < expr.length && next() !== '\n') i++
      continue
    }
    if (char === '[') {
      i = expr.indexOf(']', i) + 1 || expr.length
      continue
    }
    if (char === '{') braceDepth++
    if (char === '}') braceDepth--
    if (/[0-9.]/.test(char)) {
      // Numbers and durations (1e9, 0.5, 6h, 1h30m, 0x1F).
      while (i < expr.length && /[0-9a-zA-Z._+]/.test(next())) {
        if ((next() === '+' || next() === '-') && !/[eE]/.test(expr[i - 1] ?? '')) break
        i++
      }
      continue
    }
    const identifier = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))?.[0]
    if (!identifier) {
      i++
      continue
    }
    i += identifier.length
    const lower = identifier.toLowerCase()
    if (braceDepth > 0) continue // a label name in a matcher
    if (LABEL_LIST_KEYWORDS.has(lower)) {
      const rest = expr.slice(i)
      const list = /^\s*\([^)]*\)/.exec(rest)
      if (list) i += list[0].length
      continue
    }
    if (KEYWORDS.has(lower)) continue
    // A function or an aggregation, the latter possibly with its grouping first (`sum by (x) (...)`).
    if (/^\s*(\(|(by|without)\s*\()/i.test(expr.slice(i))) continue
    names.add(identifier)
  }
  return [...names]
}

function skipString(expr: string, start: number): number {
  const quote = expr[start]
  let i = start + 1
  while (i < expr.length && expr[i] !== quote) {
    if (expr[i] === '\\' && quote !== '`') i++
    i++
  }
  return i + 1
}

/** What Grafana puts in place of its variables when every variable is set to "All". */
export const GRAFANA_ALL_VALUES: Readonly<Record<string, string>> = {
  job: '.+',
  instance: '.+',
  bucket: '.*',
  __rate_interval: '1m',
  __interval: '15s',
  __range: '1h',
}

/** Replaces `$name` and `${name}` with `values[name]`; throws on a variable it does not know. */
export function fillGrafanaVariables(
  expr: string,
  values: Readonly<Record<string, string>> = GRAFANA_ALL_VALUES,
): string {
  return expr.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (match, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? ''
      const value = values[name]
      if (value === undefined) throw new Error(`unknown Grafana variable ${match} in ${expr}`)
      return value
    },
  )
}

/** Names a query may select: the catalogue's families, a histogram's series, runtime families, `up`. */
export function isKnownMetric(name: string, namespace: string, recorded: ReadonlySet<string>): boolean {
  if (name === 'up' || recorded.has(name)) return true
  if (RUNTIME_FAMILY_PREFIXES.some((prefix) => name.startsWith(prefix))) return true
  return familyOf(name, namespace) !== undefined
}

/** The catalogue family a series name belongs to (a histogram's _bucket/_sum/_count included). */
export function familyOf(name: string, namespace: string): CatalogueName | undefined {
  for (const key of familyNames) {
    const full = exposedFamily(namespace, catalogue[key]).name
    if (name === full) return key
    const definition: Catalogue[CatalogueName] = catalogue[key]
    if (
      isHistogram(definition.type) &&
      ['_bucket', '_sum', '_count', '_gsum', '_gcount'].some((suffix) => name === full + suffix)
    ) {
      return key
    }
  }
  return undefined
}

export interface RuleExpression {
  readonly group: string
  /** The alert or recording rule name. */
  readonly name: string
  readonly expr: string
  readonly kind: 'alert' | 'record'
}

interface RuleFile {
  groups: Array<{
    name: string
    rules: Array<{ alert?: string; record?: string; expr: string; labels?: Record<string, string> }>
  }>
}

export function readRules(path: string): RuleExpression[] {
  const file = parse(readFileSync(path, 'utf8')) as RuleFile
  return file.groups.flatMap((group) =>
    group.rules.map((rule) => ({
      group: group.name,
      name: rule.alert ?? rule.record ?? '',
      expr: rule.expr,
      kind: rule.alert ? ('alert' as const) : ('record' as const),
    })),
  )
}

export interface DashboardQuery {
  readonly panel: string
  readonly refId: string
  readonly expr: string
}

interface DashboardJson {
  panels: Array<{
    title: string
    targets?: Array<{ refId: string; expr: string }>
    panels?: DashboardJson['panels']
  }>
  templating: { list: Array<{ name: string; type: string; query: string }> }
}

/** Every panel query of a dashboard (rows' nested panels included). */
export function dashboardQueries(dashboard: unknown): DashboardQuery[] {
  const walk = (panels: DashboardJson['panels']): DashboardQuery[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).map((target) => ({
        panel: panel.title,
        refId: target.refId,
        expr: target.expr,
      })),
      ...walk(panel.panels ?? []),
    ])
  return walk((dashboard as DashboardJson).panels)
}

export interface LabelValuesQuery {
  readonly variable: string
  /** The series selector of `label_values(selector, label)`. */
  readonly selector: string
  readonly label: string
}

/** The `label_values(selector, label)` queries of a dashboard's query variables. */
export function variableQueries(dashboard: unknown): LabelValuesQuery[] {
  return (dashboard as DashboardJson).templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => {
      const match = /^label_values\((.+),\s*(\w+)\)$/.exec(variable.query)
      if (!match) throw new Error(`variable ${variable.name}: expected label_values(selector, label)`)
      return { variable: variable.name, selector: match[1] ?? '', label: match[2] ?? '' }
    })
}
