/**
 * The Prometheus text format 0.0.4 and OpenMetrics 1.0.0: header lines, escaping, values and
 * content negotiation. The one writer (writer.ts) uses them for every family, per scrape and
 * per snapshot alike.
 */

export type ExpositionType = 'gauge' | 'counter' | 'histogram' | 'gaugehistogram' | 'summary' | 'untyped'

interface ExpositionSample {
  /** Full sample name, suffix included (`_bucket`, `_sum`, `_count`, `_total`). */
  readonly name: string
  readonly labels: ReadonlyArray<readonly [string, string]>
  readonly value: number
}

export interface ExpositionFamily {
  readonly name: string
  readonly help: string
  readonly type: ExpositionType
  readonly samples: readonly ExpositionSample[]
}

export type ExpositionFormat = 'text' | 'openmetrics'

export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
}

/** The `# HELP` and `# TYPE` lines of a family. */
export function familyHeader(
  family: { readonly name: string; readonly help: string; readonly type: ExpositionType },
  format: ExpositionFormat,
): string {
  // OpenMetrics names a counter family without its `_total`, which stays on the sample.
  const familyName =
    format === 'openmetrics' && family.type === 'counter' ? family.name.replace(/_total$/, '') : family.name
  const type = typeName(family.type, format)
  return `# HELP ${familyName} ${escapeHelp(family.help)}\n# TYPE ${familyName} ${type}\n`
}

/**
 * The type a format calls `type`: OpenMetrics says `unknown` for untyped; the text format has no
 * gauge histogram and says `histogram` (its samples then end in `_sum`/`_count`: histogramSuffixes).
 */
function typeName(type: ExpositionType, format: ExpositionFormat): string {
  if (format === 'openmetrics') return type === 'untyped' ? 'unknown' : type
  return type === 'gaugehistogram' ? 'histogram' : type
}

/** Whether a family's sample lines differ between the formats (not only its header lines). */
export function samplesDifferByFormat(type: ExpositionType): boolean {
  return type === 'gaugehistogram'
}

/**
 * A histogram's sum and count lines (`braces`: its `{labels}`, or empty): `_gsum`/`_gcount` for an
 * OpenMetrics gauge histogram, `_sum`/`_count` otherwise.
 */
export function histogramSumAndCount(
  family: { readonly name: string; readonly type: ExpositionType },
  braces: string,
  format: ExpositionFormat,
  histogram: { readonly sum: number; readonly count: number },
): string {
  const g = family.type === 'gaugehistogram' && format === 'openmetrics' ? 'g' : ''
  return (
    `${family.name}_${g}sum${braces} ${formatValue(histogram.sum)}\n` +
    `${family.name}_${g}count${braces} ${formatValue(histogram.count)}\n`
  )
}

/** `name="value",...` for labels given as pairs, in their order. */
export function labelPairs(labels: ReadonlyArray<readonly [string, string]>): string {
  let pairs = ''
  for (let index = 0; index < labels.length; index++) {
    const [labelName, labelValue] = labels[index] as readonly [string, string]
    pairs += `${index ? ',' : ''}${labelName}="${escapeLabelValue(labelValue)}"`
  }
  return pairs
}

export const OPENMETRICS_EOF = '# EOF\n'

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
}

/** Most label values (bucket names) need no escaping; testing first spares three replacements. */
const NEEDS_ESCAPE = /[\\\n"]/

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

/** `le` values as Prometheus clients write them: integers without a fraction, no exponent below 1e21. */
export function formatBound(bound: number): string {
  return Number.isFinite(bound) ? String(bound) : bound > 0 ? '+Inf' : '-Inf'
}

/**
 * A sample's value: integers as they are (byte counts past 2^53 included), other values with at
 * most 15 significant digits, the most a double always holds exactly, so the noise of binary
 * arithmetic (`0.1 + 0.2`, a sum of prices) is not printed: `0.30000000000000004` is `0.3`.
 * The shortest form is kept when it is short enough (most values): no rounding is paid then.
 */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf'
  const text = String(value)
  // A non-integer's 16 characters hold at most 15 digits beside its point; integers print no noise.
  if (text.length <= 16 || Number.isInteger(value)) return text
  return String(Number(value.toPrecision(MAX_SIGNIFICANT_DIGITS)))
}

const MAX_SIGNIFICANT_DIGITS = 15

/**
 * Picks the format from an Accept header by q-value, as Prometheus sends it
 * (`application/openmetrics-text;version=1.0.0,...,text/plain;version=0.0.4;q=0.5,*\/*;q=0.1`).
 * OpenMetrics only when it is preferred to the text format; text otherwise.
 */
export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (!accept) return 'text'
  let openMetricsQ = 0
  let textQ = 0
  for (const range of accept.split(',')) {
    const [mediaType = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase())
    let q = 1
    let version: string | undefined
    for (const parameter of parameters) {
      const [key, value = ''] = parameter.split('=').map((part) => part.trim())
      if (key === 'q') q = Number.parseFloat(value) || 0
      if (key === 'version') version = value
    }
    if (mediaType === 'application/openmetrics-text' && (version === undefined || version.startsWith('1.'))) {
      openMetricsQ = Math.max(openMetricsQ, q)
    } else if (mediaType === 'text/plain' || mediaType === '*/*' || mediaType === 'text/*') {
      textQ = Math.max(textQ, q)
    }
  }
  return openMetricsQ > 0 && openMetricsQ > textQ ? 'openmetrics' : 'text'
}
