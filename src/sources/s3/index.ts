import type { ScanFolds } from '../../config/bucket-groups.js'
import { type PrefixVariables, prefixSettings } from '../../config/env/prefixes.js'
import { withoutCredentials } from '../../config/url-credentials.js'
import { defineSource } from '../definition.js'
import {
  parseTagLabels,
  S3_CREDENTIAL_URL_VARIABLES,
  S3_SECRET_VARIABLES,
  type S3Settings,
  s3ConnectionRequirements,
  s3Env,
} from './settings.js'

/** `BUCKETS_SOURCE=s3`: any S3-compatible endpoint, listed through the AWS SDK (loaded when chosen). */
export const s3Source = defineSource({
  name: 's3',
  summary: 'an S3-compatible endpoint, listed',
  env: s3Env,
  requirements: s3ConnectionRequirements,
  secretVariables: S3_SECRET_VARIABLES,
  credentialUrlVariables: S3_CREDENTIAL_URL_VARIABLES,
  local: false,
  emptyRefused: [
    {
      variable: 'S3_ENDPOINT',
      reason:
        "set but empty; with BUCKETS_SOURCE=s3 that would mean AWS S3 (and send the access key id there): set the store's URL, or remove the variable to use AWS S3",
    },
  ],
  bucketGroups: {
    age: 'given',
    hidden: 'given',
    prefixes: 'given',
    info: 'given',
    index: { notGiven: "the index is Ceph RGW's admin API (BUCKETS_SOURCE=rgw)" },
    usage_log: { notGiven: "the usage log is Ceph RGW's admin API (BUCKETS_SOURCE=rgw)" },
  },
  where: (settings: S3Settings) =>
    settings.S3_ENDPOINT === ''
      ? `AWS S3 (region ${settings.S3_REGION})`
      : withoutCredentials(settings.S3_ENDPOINT),
  // Only what BUCKET_METRICS writes is folded or asked of the store (SCAN_FOLDS).
  create: async (settings: S3Settings & PrefixVariables & { readonly SCAN_FOLDS: ScanFolds }, logger) =>
    (await import('./source.js')).createS3Source({
      endpoint: settings.S3_ENDPOINT,
      region: settings.S3_REGION,
      forcePathStyle: settings.S3_FORCE_PATH_STYLE,
      accessKeyId: settings.S3_ACCESS_KEY_ID,
      secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
      scanVersions: settings.SCAN_VERSIONS,
      listRanges: settings.S3_LIST_RANGES,
      multipartPartsMaxUploads: settings.MULTIPART_PARTS_MAX_UPLOADS,
      multipartStaleDays: settings.MULTIPART_STALE_DAYS,
      prefixes: settings.SCAN_FOLDS.prefixes ? prefixSettings(settings) : undefined,
      ages: settings.SCAN_FOLDS.age,
      hidden: settings.SCAN_FOLDS.hidden,
      uploads: settings.SCAN_FOLDS.multipart || settings.SCAN_FOLDS.hidden,
      maxResponseBytes: settings.S3_MAX_RESPONSE_BYTES,
      caFile: settings.S3_CA_FILE,
      bucketSettings: settings.SCAN_FOLDS.info && settings.S3_BUCKET_SETTINGS,
      tagLabels: settings.SCAN_FOLDS.info ? parseTagLabels(settings.BUCKET_TAG_LABELS).labels : new Map(),
      inventory:
        settings.S3_INVENTORY_DESTINATION === ''
          ? undefined
          : {
              destination: settings.S3_INVENTORY_DESTINATION,
              configuration: settings.S3_INVENTORY_CONFIG_ID,
              missing: settings.S3_INVENTORY_MISSING,
              maxFileBytes: settings.S3_INVENTORY_MAX_FILE_BYTES,
              maxInflation: settings.S3_INVENTORY_MAX_INFLATION,
            },
      logger,
    }),
})
