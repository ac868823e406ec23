import { replaceBetween } from '../../scripts/page-markers.js'
import { type BenchRow, formatTable } from './report.js'

/**
 * docs/performance.md's tables, written by `npm run bench -- --docs` from the run just made: the
 * main table from a full run (no filter: a partial run would drop rows), the soak table from
 * `npm run bench -- soak --docs`. Each sits between its markers; the prose around them is not
 * touched, and the page is reviewed and committed like any change.
 */
export const PERFORMANCE_PAGE = 'docs/performance.md'

export const PAGE_TABLES = {
  bench: ['<!-- bench:start (written by npm run bench -- --docs) -->', '<!-- bench:end -->'],
  soak: ['<!-- soak:start (written by npm run bench -- soak --docs) -->', '<!-- soak:end -->'],
} as const satisfies Record<string, readonly [string, string]>

export type PageTable = keyof typeof PAGE_TABLES

/** Which table a run with `filter` may write; throws when it may write none. */
export function pageTableFor(filter: string): PageTable {
  if (filter === '') return 'bench'
  if (filter === 'soak') return 'soak'
  throw new Error(
    `--docs needs a full run (npm run bench -- --docs) or the soak (npm run bench -- soak --docs), ` +
      `not "${filter}": a partial run would drop rows`,
  )
}

/** "3 minutes 11 seconds". */
export function spelledDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`
  return minutes > 0 ? `${unit(minutes, 'minute')} ${unit(rest, 'second')}` : unit(rest, 'second')
}

/** The page's text with `table` replaced by the rows of the run just made. */
export function updatePerformancePage(
  page: string,
  table: PageTable,
  rows: readonly BenchRow[],
  run: { readonly elapsedMs: number; readonly cores: number },
): string {
  const body =
    table === 'bench'
      ? `Measured on the ${run.cores}-core development machine (\`npm run bench\`, ` +
        `${spelledDuration(run.elapsedMs)} in all):\n\n${formatTable(rows)}`
      : formatTable(rows)
  return replaceBetween(PERFORMANCE_PAGE, page, PAGE_TABLES[table], body)
}
