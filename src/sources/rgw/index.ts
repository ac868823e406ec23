import type { ScanFolds } from '../../config/bucket-groups.js'
import { withoutCredentials } from '../../config/url-credentials.js'
import { defineSource } from '../definition.js'
import { S3_CREDENTIAL_URL_VARIABLES, S3_SECRET_VARIABLES } from '../s3/settings.js'
import { type RgwSettings, rgwEnv, rgwRequirements } from './settings.js'

/** `BUCKETS_SOURCE=rgw`: Ceph RGW's admin API counters (the SDK's signer loaded when chosen). */
export const rgwSource = defineSource({
  name: 'rgw',
  summary: "Ceph RGW's admin API counters, one request per scan",
  env: rgwEnv,
  requirements: rgwRequirements,
  secretVariables: S3_SECRET_VARIABLES,
  credentialUrlVariables: S3_CREDENTIAL_URL_VARIABLES,
  local: false,
  // Empty S3_ENDPOINT is refused by its requirement (rgw needs an endpoint).
  emptyRefused: [],
  bucketGroups: {
    age: { notGiven: 'it reads counters and lists no keys, so it sees no object dates' },
    hidden: { notGiven: 'it reads counters and lists no keys, versions or uploads' },
    prefixes: { notGiven: 'it reads counters and lists no keys' },
    info: 'given',
    index: 'given',
    usage_log: 'given',
  },
  where: (settings: RgwSettings) =>
    `${withoutCredentials(settings.S3_ENDPOINT).replace(/\/$/, '')}/${settings.RGW_ADMIN_PATH.replace(/^\//, '')}`,
  create: async (
    settings: RgwSettings & { readonly SCAN_TIMEOUT_SECONDS: number; readonly SCAN_FOLDS: ScanFolds },
    logger,
  ) =>
    (await import('./source.js')).createRgwSource({
      endpoint: settings.S3_ENDPOINT,
      region: settings.S3_REGION,
      accessKeyId: settings.S3_ACCESS_KEY_ID,
      secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
      adminPath: settings.RGW_ADMIN_PATH,
      requestTimeoutMs: settings.SCAN_TIMEOUT_SECONDS * 1000,
      maxResponseBytes: settings.RGW_MAX_RESPONSE_BYTES,
      indexLimits: {
        maxObjectsPerShard: settings.RGW_SAFE_MAX_OBJECTS_PER_SHARD,
        warningPercent: settings.RGW_SHARD_WARNING_PERCENT,
      },
      folds: settings.SCAN_FOLDS,
      userMetrics: settings.RGW_USER_METRICS,
      usersMax: settings.RGW_USERS_MAX,
      logger,
    }),
})
