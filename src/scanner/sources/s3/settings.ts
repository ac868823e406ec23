import { Type } from '@sinclair/typebox'
import { describedPattern, type EnvValues, type Requirement } from '../../../config/schema-helpers.js'

/**
 * The variables of `BUCKETS_SOURCE=s3`, and the connection variables `rgw` shares (RGW's admin API
 * is signed like S3). Schema only: this module must not import the AWS SDK, which is loaded only
 * when a source that needs it is chosen.
 */

/** Where the store is and how to sign requests to it: `s3` and `rgw` alike. */
export const s3ConnectionEnv = {
  S3_ENDPOINT: Type.String({
    default: '',
    pattern: describedPattern('^(https?://.+)?$', 'an http:// or https:// URL'),
    description: '`s3`, `rgw`: endpoint URL of the S3-compatible store (`http://minio:9000`). Empty: AWS S3.',
  }),
  S3_REGION: Type.String({
    default: 'us-east-1',
    minLength: 1,
    description: '`s3`, `rgw`: region used to sign requests.',
  }),
  S3_ACCESS_KEY_ID: Type.String({
    default: '',
    description:
      '`s3`, `rgw`: access key; with `S3_SECRET_ACCESS_KEY`. Empty: the AWS SDK default chain (environment, profile, web identity, instance role).',
  }),
  S3_SECRET_ACCESS_KEY: Type.String({
    default: '',
    description: '`s3`, `rgw`: secret key, with `S3_ACCESS_KEY_ID`.',
  }),
}

/** `BUCKETS_SOURCE=s3`, in the order the README lists them. */
export const s3Env = {
  SCAN_VERSIONS: Type.Boolean({
    default: false,
    description:
      '`s3`: list object versions (ListObjectVersions) to report versions, delete markers and noncurrent bytes.',
  }),
  S3_ENDPOINT: s3ConnectionEnv.S3_ENDPOINT,
  S3_REGION: s3ConnectionEnv.S3_REGION,
  S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description:
      '`s3`: address buckets as `endpoint/bucket` instead of `bucket.endpoint` (most non-AWS stores need it).',
  }),
  S3_CA_FILE: Type.String({
    default: '',
    description:
      "`s3`: PEM file of CA certificates trusted for the store's TLS certificate, besides the system's (a private CA); read and checked at start. `NODE_EXTRA_CA_CERTS` works too, for every TLS connection of the process. There is no switch to skip verification.",
  }),
  S3_MAX_RESPONSE_BYTES: Type.Integer({
    default: 33554432,
    minimum: 65536,
    maximum: 1073741824,
    description:
      '`s3`: the most bytes one answer of the store may hold (default 32 MiB; a page of 1,000 keys of 1,024 bytes is about 1.5 MB). Past it the answer is not read further and its bucket (or the bucket listing) fails with "answer larger than S3_MAX_RESPONSE_BYTES"; memory stays bounded whatever the store sends.',
  }),
  S3_ACCESS_KEY_ID: s3ConnectionEnv.S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY: s3ConnectionEnv.S3_SECRET_ACCESS_KEY,
}

export type S3ConnectionSettings = EnvValues<typeof s3ConnectionEnv>
export type S3Settings = EnvValues<typeof s3Env>

/** The key pair: each is required with the other (both empty: the SDK's default chain). */
export const s3ConnectionRequirements: readonly Requirement<S3ConnectionSettings>[] = [
  {
    variable: 'S3_SECRET_ACCESS_KEY',
    when: 'S3_ACCESS_KEY_ID is set',
    applies: (env) => env.S3_ACCESS_KEY_ID !== '',
    example: { S3_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE' },
  },
  {
    variable: 'S3_ACCESS_KEY_ID',
    when: 'S3_SECRET_ACCESS_KEY is set',
    applies: (env) => env.S3_SECRET_ACCESS_KEY !== '',
    example: { S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  },
]

/** Never echoed: not in error messages, logs or pages. */
export const S3_SECRET_VARIABLES = ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const
/** May carry credentials in its user info: shown only through `withoutCredentials`. */
export const S3_CREDENTIAL_URL_VARIABLES = ['S3_ENDPOINT'] as const
