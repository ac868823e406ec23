import type { Logger } from 'pino'
import type { Config } from '../../config/load.js'
import { createFsSource } from './fs.js'
import type { UsageSource } from './types.js'

type SourceName = Config['BUCKETS_SOURCE']
type SourceFactory = (config: Config, logger: Logger) => Promise<UsageSource> | UsageSource

/**
 * BUCKETS_SOURCE -> factory. A new source is one file under sources/ and one entry here. Sources
 * with heavy dependencies (s3 and rgw load the AWS SDK) are imported only when chosen: the SDK
 * alone is some 20 MB of resident memory that an exporter of a data directory has no use for.
 */
const factories: Record<SourceName, SourceFactory> = {
  fs: (config) => createFsSource({ dataDir: config.DATA_DIR, threads: config.SCAN_CONCURRENCY }),
  s3: async (config, logger) =>
    (await import('./s3.js')).createS3Source({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      scanVersions: config.SCAN_VERSIONS,
      maxResponseBytes: config.S3_MAX_RESPONSE_BYTES,
      logger,
    }),
  rgw: async (config) =>
    (await import('./rgw.js')).createRgwSource({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      adminPath: config.RGW_ADMIN_PATH,
      requestTimeoutMs: config.SCAN_TIMEOUT_SECONDS * 1000,
      maxResponseBytes: config.RGW_MAX_RESPONSE_BYTES,
    }),
}

export async function createUsageSource(config: Config, logger: Logger): Promise<UsageSource> {
  return factories[config.BUCKETS_SOURCE](config, logger)
}
