import type { Logger } from 'pino'
import type { Config } from '../../config/load.js'
import { createFsSource } from './fs.js'
import { createRgwSource } from './rgw.js'
import { createS3Source } from './s3.js'
import type { UsageSource } from './types.js'

type SourceName = Config['BUCKETS_SOURCE']

/** BUCKETS_SOURCE -> factory. A new source is one file under sources/ and one entry here. */
const factories: Record<SourceName, (config: Config, logger: Logger) => UsageSource> = {
  fs: (config) => createFsSource({ dataDir: config.DATA_DIR, threads: config.SCAN_CONCURRENCY }),
  s3: (config, logger) =>
    createS3Source({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      scanVersions: config.SCAN_VERSIONS,
      logger,
    }),
  rgw: (config) =>
    createRgwSource({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      adminPath: config.RGW_ADMIN_PATH,
      requestTimeoutMs: config.SCAN_TIMEOUT_SECONDS * 1000,
    }),
}

export function createUsageSource(config: Config, logger: Logger): UsageSource {
  return factories[config.BUCKETS_SOURCE](config, logger)
}
