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
  where: (settings: { readonly DATA_DIR: string }) => settings.DATA_DIR,
  create: async (settings: { readonly DATA_DIR: string; readonly SCAN_CONCURRENCY: number }) =>
    (await import('./source.js')).createFsSource({
      dataDir: settings.DATA_DIR,
      threads: settings.SCAN_CONCURRENCY,
    }),
})
