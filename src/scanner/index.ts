import type { Logger } from 'pino'
import type { Config } from '../config/load.js'
import { bucketFilterFromConfig } from './bucket-filter.js'
import { UsageScanner } from './scanner.js'
import { createUsageSource } from './sources/index.js'

/** The scanner the configuration describes: its source, bucket selection, schedule and state file. */
export async function createScannerFromConfig(config: Config, logger: Logger): Promise<UsageScanner> {
  const fixedBuckets = config.BUCKETS.split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0)
  return new UsageScanner({
    source: await createUsageSource(config, logger),
    filter: bucketFilterFromConfig(config),
    ...(fixedBuckets.length > 0 ? { fixedBuckets } : {}),
    intervalMs: config.SCAN_INTERVAL_SECONDS * 1000,
    concurrency: config.SCAN_CONCURRENCY,
    timeoutMs: config.SCAN_TIMEOUT_SECONDS * 1000,
    ...(config.STATE_FILE ? { stateFile: config.STATE_FILE } : {}),
    logger,
  })
}
