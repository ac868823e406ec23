import { Type } from '@sinclair/typebox'
import { describedPattern } from '../schema-helpers.js'

/**
 * `BUCKETS_SOURCE=rgw`: Ceph RGW's admin API. It reuses the S3 variables (`S3_ENDPOINT`,
 * `S3_REGION`, the key pair or the SDK default chain), since the admin API is signed like S3.
 */
export const rgwEnv = {
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
}
