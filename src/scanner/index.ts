import type { Logger } from 'pino'
import type { Config } from '../config/load.js'
import { createBucketFilter } from './bucket-filter.js'
import { UsageScanner } from './scanner.js'
import { createUsageSource } from './sources/index.js'

/** The scanner the configuration describes: its source, bucket selection, schedule and state file. */
export async function createScannerFromConfig(
  config: Config,
  logger: Logger,
  options: { readonly clock?: () => number } = {},
): Promise<UsageScanner> {
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
    ...(config.STATE_FILE ? { stateFile: config.STATE_FILE } : {}),
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  })
}
