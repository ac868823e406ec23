import { replaceBetween } from '../../scripts/readme-markers.js'
import { type BenchRow, formatTable } from './report.js'

/**
 * The README's Performance tables, written by `npm run bench -- --readme` from the run just made:
 * the main table from a full run (no filter: a partial run would drop rows), the soak table from
 * `npm run bench -- soak --readme`. Each sits between its markers; the prose around them is not
 * touched.
 */
export const README_TABLES = {
  bench: ['<!-- bench:start (written by npm run bench -- --readme) -->', '<!-- bench:end -->'],
  soak: ['<!-- soak:start (written by npm run bench -- soak --readme) -->', '<!-- soak:end -->'],
} as const satisfies Record<string, readonly [string, string]>

export type ReadmeTable = keyof typeof README_TABLES

/** Which table a run with `filter` may write; throws when it may write none. */
export function readmeTableFor(filter: string): ReadmeTable {
  if (filter === '') return 'bench'
  if (filter === 'soak') return 'soak'
  throw new Error(
    `--readme needs a full run (npm run bench -- --readme) or the soak (npm run bench -- soak --readme), ` +
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

/** `readme` with `table` replaced by the rows of the run just made. */
export function updateBenchReadme(
  readme: string,
  table: ReadmeTable,
  rows: readonly BenchRow[],
  run: { readonly elapsedMs: number; readonly cores: number },
): string {
  const body =
    table === 'bench'
      ? `Measured on the ${run.cores}-core development machine (\`npm run bench\`, ` +
        `${spelledDuration(run.elapsedMs)} in all):\n\n${formatTable(rows)}`
      : formatTable(rows)
  return replaceBetween(readme, README_TABLES[table], body)
}
