import { Type } from '@sinclair/typebox'
import { describedPattern, type EnvValues, type Requirement } from '../../config/schema-helpers.js'
import { s3ConnectionEnv } from '../s3/settings.js'

/**
 * `BUCKETS_SOURCE=rgw`: Ceph RGW's admin API. It reuses the S3 variables (`S3_ENDPOINT`,
 * `S3_REGION`, the key pair or the SDK default chain), since the admin API is signed like S3.
 */
export const rgwEnv = {
  ...s3ConnectionEnv,
  RGW_ADMIN_PATH: Type.String({
    default: 'admin',
    pattern: describedPattern('^/?[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*/?$', 'a URL path such as admin'),
    description:
      '`rgw`: where RGW serves its admin API under `S3_ENDPOINT` (its `rgw admin entry` setting). The key needs the admin cap `buckets=read`.',
  }),
  RGW_MAX_RESPONSE_BYTES: Type.Integer({
    default: 134217728,
    minimum: 65536,
    // Just under V8's longest string (2^29 - 24 characters): the answer is parsed as one text.
    maximum: 524288000,
    description:
      '`rgw`: the most bytes the admin API\'s bucket stats answer may hold (default 128 MiB: about 150,000 buckets at some 850 bytes each; raise it for more). Past it the answer is not read further and the scan fails with "answer larger than RGW_MAX_RESPONSE_BYTES".',
  }),
  RGW_SAFE_MAX_OBJECTS_PER_SHARD: Type.Integer({
    default: 102400,
    minimum: 1,
    maximum: 1000000000,
    description:
      "`rgw`, with the `index` group of `BUCKET_METRICS`: RGW's `rgw_safe_max_objects_per_shard` (default 102,400, what `radosgw-admin bucket limit check` measures against; not dynamic resharding's `rgw_max_objs_per_shard`), which the admin API does not serve: the full mark of `bucket_index_fill_ratio`, past it OVER. Set it to your RGW's value.",
  }),
  RGW_SHARD_WARNING_PERCENT: Type.Integer({
    default: 90,
    minimum: 1,
    maximum: 100,
    description:
      "`rgw`, with the `index` group of `BUCKET_METRICS`: RGW's `rgw_shard_warning_threshold` (default 90): from this fill percent `bucket_index_fill_status` is WARN, as in `radosgw-admin bucket limit check`.",
  }),
  RGW_USER_METRICS: Type.Boolean({
    default: true,
    description:
      "`rgw`: read every user's usage and enabled quota after the buckets (`user_*` families: one list request per 1,000 users, one request per user; the key needs the admin cap `users=read`). Without the cap the families are absent and one warning says so. `false`: not read.",
  }),
  RGW_USERS_MAX: Type.Integer({
    default: 1000,
    minimum: 1,
    maximum: 100000,
    description:
      "`rgw`: the most users measured per scan (the first ones of RGW's user list); the others are counted in `users_omitted` and logged.",
  }),
}

export type RgwSettings = EnvValues<typeof rgwEnv>

export const rgwRequirements: readonly Requirement<RgwSettings & { readonly BUCKETS_SOURCE: string }>[] = [
  {
    variable: 'S3_ENDPOINT',
    when: 'BUCKETS_SOURCE=rgw (the RGW endpoint; AWS S3 has no RGW admin API)',
    applies: (env) => env.BUCKETS_SOURCE === 'rgw',
    example: { BUCKETS_SOURCE: 'rgw' },
  },
]
