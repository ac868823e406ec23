import type { Logger } from 'pino'
import { ConfigError } from '../config/config-error.js'
import type { Config } from '../config/load.js'
import { stateFileKindProblem } from '../snapshot/state-file-kind.js'
import { createUsageSource } from '../sources/index.js'
import { createBucketFilter } from './bucket-filter.js'
import { UsageScanner } from './scanner.js'

/**
 * How long start-up waits for STATE_FILE's check before listening anyway: a local file answers in
 * microseconds; one on a hung mount never does, and the load (in the background) gives it up.
 */
const KIND_CHECK_WAIT_MS = 2000

/** The scanner the configuration describes: its source, bucket selection, schedule and state file. */
export async function createScannerFromConfig(
  config: Config,
  logger: Logger,
  options: {
    readonly clock?: () => number
    /** Between two progress lines of a round; 15 s unless a test says otherwise. */
    readonly progressIntervalMs?: number | undefined
  } = {},
): Promise<UsageScanner> {
  const stateFile = config.STATE_FILE ? await checkedStateFile(config) : undefined
  return new UsageScanner({
    source: await createUsageSource(config, logger),
    filter: createBucketFilter({
      include: config.BUCKETS_INCLUDE,
      exclude: config.BUCKETS_EXCLUDE,
      shard: config.SHARD,
    }),
    ...(config.BUCKETS.length > 0 ? { fixedBuckets: config.BUCKETS } : {}),
    intervalMs: config.SCAN_INTERVAL_SECONDS * 1000,
    concurrency: config.SCAN_CONCURRENCY,
    timeoutMs: config.SCAN_TIMEOUT_SECONDS * 1000,
    subtotals: {
      fullEvery: config.SCAN_FULL_EVERY,
      minObjects: config.SCAN_SUBTOTALS_MIN_OBJECTS,
      maxEntries: config.SCAN_RANGE_MAX_OBJECTS,
    },
    ...(stateFile ? { stateFile } : {}),
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    progressIntervalMs: options.progressIntervalMs,
  })
}

/**
 * STATE_FILE checked before the server listens: a device, a FIFO or a folder is refused (one
 * line, exit 2). A check that has not answered within KIND_CHECK_WAIT_MS (a hung mount) is left to
 * the load, which waits for it in the background within STATE_FILE_TIMEOUT_SECONDS.
 */
async function checkedStateFile(config: Config) {
  const kindProblem = stateFileKindProblem(config.STATE_FILE)
  let timer: NodeJS.Timeout | undefined
  const answer = await Promise.race([
    kindProblem.then((problem) => ({ problem })),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), KIND_CHECK_WAIT_MS))),
  ])
  clearTimeout(timer)
  if (answer?.problem !== undefined)
    throw new ConfigError([
      `STATE_FILE: ${answer.problem}; expected a regular file, a link to one, or a path where none exists yet (empty: no state file)`,
    ])
  return { path: config.STATE_FILE, stallMs: config.STATE_FILE_TIMEOUT_SECONDS * 1000, kindProblem }
}
