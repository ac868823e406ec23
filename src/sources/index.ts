import type { Logger } from 'pino'
import type { Config } from '../config/load.js'
import { SOURCES } from './list.js'
import type { UsageSource } from './types.js'

/**
 * The source BUCKETS_SOURCE names, from the source list (./list.ts). Each source's `create` reads
 * its part of the configuration and imports its implementation only now: the AWS SDK alone is
 * some 20 MB of resident memory that an exporter of a data directory has no use for.
 */
export async function createUsageSource(config: Config, logger: Logger): Promise<UsageSource> {
  const source = SOURCES.find((candidate) => candidate.name === config.BUCKETS_SOURCE)
  // The schema allows only the list's names.
  if (!source) throw new Error(`no usage source named ${config.BUCKETS_SOURCE}`)
  return source.create(config, logger)
}
