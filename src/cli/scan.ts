import type { LoadedConfig } from '../config/load.js'
import { expositionNaming } from '../exporter.js'
import type { SeriesBudget } from '../exposition/usage-budget.js'
import { seriesBudgetOf } from '../exposition/usage-exposition.js'
import { createLogger } from '../logging/create-logger.js'
import { routeProcessWarnings } from '../logging/process-warnings.js'
import { createScannerFromConfig } from '../scanning/index.js'
import type { UsageScanner } from '../scanning/scanner.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import { loadWithFlags, logConfigWarnings, refuseConfiguration } from './flags.js'
import { ProgressBar, wantsBar } from './progress-bar.js'
import { redactedOutput, renderScan, type ScanFormat, writeAtomically } from './scan-output.js'

/**
 * `objstore-exporter scan --once`: one scan round of the configured source, with the selection,
 * concurrency and timeouts serve uses, printed (or written atomically to `--output`). Logs go to
 * stderr, so stdout holds only the result. The state file is neither read nor written: this is a
 * look, not the serving exporter's memory. BUCKET_METRICS chooses what is folded, as for serve, and
 * the per-bucket groups `--format prometheus` prints. Exit 0 when every bucket was measured, 1 when the
 * source was down or a bucket failed (the output still says what was measured), 2 when refused.
 */
export async function scan(options: Readonly<Record<string, unknown>>): Promise<void> {
  if (options.once !== true) {
    process.stderr.write(
      'objstore-exporter: scan: --once is required (a repeating scan is what serve does)\n',
    )
    process.exit(2)
  }
  let loaded: LoadedConfig
  let budget: SeriesBudget
  try {
    loaded = loadWithFlags(process.env, options)
    // BUCKET_METRICS is checked as serve checks it; its groups choose what is folded and printed.
    budget = seriesBudgetOf(loaded.config)
  } catch (error) {
    refuseConfiguration(error)
  }
  const config = { ...loaded.config, STATE_FILE: '' }
  // On a terminal a progress bar shows on stderr, the log lines written above it.
  let scanner: UsageScanner | undefined
  let bar: ProgressBar | undefined
  if (wantsBar(process.stderr, process.env))
    bar = new ProgressBar(
      process.stderr,
      () => scanner?.progress,
      (text) => logging.redactor.redact(text),
    )
  const logging = createLogger(config, { consoleOutput: bar?.logStream ?? process.stderr })
  routeProcessWarnings(logging.logger)
  logConfigWarnings(logging.logger, loaded)
  scanner = await createScannerFromConfig(config, logging.logger.child({ component: 'scanner' }))
  let snapshot: UsageSnapshot
  try {
    const scanned = scanner.scanNow()
    bar?.start()
    snapshot = await scanned
  } finally {
    bar?.stop()
    await scanner.close()
  }
  // What the store named (a bucket, a storage class, a key prefix) is printed: blanked of secrets
  // in every encoding, as the log lines beside it are.
  const output = redactedOutput(
    renderScan(snapshot, options.format as ScanFormat, {
      naming: expositionNaming(config),
      bytes: options.bytes === true,
      groups: budget.groups,
    }),
    logging.redactor,
  )
  if (typeof options.output === 'string') {
    try {
      await writeAtomically(options.output, output)
    } catch (error) {
      process.stderr.write(
        `objstore-exporter: scan: cannot write ${options.output}: ${(error as Error).message}\n`,
      )
      process.exit(1)
    }
  } else
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(output, (error) => (error ? reject(error) : resolve())),
    )
  await logging.close(1000)
  const problem = scanProblem(snapshot, scanner.sourceFailure)
  if (problem) {
    // The last line says why, blanked of secrets as the log lines are: under a cron job it may be
    // the only line anyone reads.
    process.stderr.write(logging.redactor.redact(`objstore-exporter: scan: ${problem}\n`))
    process.exitCode = 1
  }
}

/** Why the scan's result is not whole: the source's failure, or which buckets failed; undefined when whole. */
function scanProblem(snapshot: UsageSnapshot, sourceFailure: string | undefined): string | undefined {
  if (!snapshot.sourceUp) return `the source is down: ${sourceFailure ?? 'no reason given'}`
  const failed = snapshot.buckets.filter((record) => !record.scanSuccess).map((record) => record.name)
  if (failed.length === 0) return undefined
  const named = failed.slice(0, 3).map((name) => JSON.stringify(name))
  const more = failed.length > 3 ? ` and ${failed.length - 3} more` : ''
  return `${failed.length} bucket(s) could not be measured (${named.join(', ')}${more}); each one's reason is in its warning above`
}
