import type { ScanFolds } from '../../config/bucket-groups.js'
import { type PrefixVariables, prefixSettings } from '../../config/env/prefixes.js'
import { defineSource, NO_REQUIREMENTS } from '../definition.js'

/** `BUCKETS_SOURCE=fs`: one folder per bucket under DATA_DIR, walked by worker threads. */
export const fsSource = defineSource({
  name: 'fs',
  summary: 'one folder per bucket under `DATA_DIR`',
  env: {},
  requirements: NO_REQUIREMENTS,
  secretVariables: [],
  credentialUrlVariables: [],
  local: true,
  emptyRefused: [],
  bucketGroups: {
    age: 'given',
    hidden: { notGiven: 'a folder has no versions, delete markers or multipart uploads' },
    prefixes: 'given',
    info: { notGiven: 'a folder has no owner, tags or bucket settings' },
    index: { notGiven: "the index is Ceph RGW's (BUCKETS_SOURCE=rgw)" },
    usage_log: { notGiven: "the usage log is Ceph RGW's (BUCKETS_SOURCE=rgw)" },
  },
  where: (settings: { readonly DATA_DIR: string }) => settings.DATA_DIR,
  // Only what BUCKET_METRICS writes is folded (SCAN_FOLDS).
  create: async (
    settings: {
      readonly DATA_DIR: string
      readonly SCAN_CONCURRENCY: number
      readonly SCAN_FOLDS: ScanFolds
    } & PrefixVariables,
    logger,
  ) =>
    (await import('./source.js')).createFsSource({
      dataDir: settings.DATA_DIR,
      threads: settings.SCAN_CONCURRENCY,
      prefixes: settings.SCAN_FOLDS.prefixes ? prefixSettings(settings) : undefined,
      ages: settings.SCAN_FOLDS.age,
      logger,
    }),
})
