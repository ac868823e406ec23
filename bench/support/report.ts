/**
 * How every bench reports: rows of figure against a baseline measured in the same run, the
 * ratio, the target and whether it was met. A bench prints its rows as a table for people and as
 * one `BENCH_RESULT <json>` line that `npm run bench` (bench/run.ts) gathers into one table.
 */
export interface BenchRow {
  /** What is measured, e.g. "scrape CPU, 10,000 buckets". */
  readonly name: string
  readonly figure: string
  readonly baseline: string
  /** figure/baseline (or baseline/figure where bigger is better); say which in `target`. */
  readonly ratio: number | null
  readonly target: string
  readonly pass: boolean
}

export const RESULT_PREFIX = 'BENCH_RESULT '

export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'figure', 'baseline', 'ratio', 'target', 'result']
  const body = rows.map((row) => [
    row.name,
    row.figure,
    row.baseline,
    row.ratio === null ? '-' : `${row.ratio.toFixed(2)}x`,
    row.target,
    row.pass ? 'pass' : 'FAIL',
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n')
}

export function report(rows: readonly BenchRow[]): void {
  process.stdout.write(`${formatTable(rows)}\n${RESULT_PREFIX}${JSON.stringify(rows)}\n`)
}

/** Median of repeated measurements: benches repeat and take the median to damp a noisy machine. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}
