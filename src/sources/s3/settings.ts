import { Type } from '@sinclair/typebox'
import { MAX_TAG_LABELS } from '../../config/env/tag-labels.js'
import {
  describedPattern,
  type EnvValues,
  type Requirement,
  StringEnum,
} from '../../config/schema-helpers.js'
import { shownValue } from '../../config/shown-value.js'

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

/** `BUCKETS_SOURCE=s3`, in the order docs/configuration.md lists them. */
export const s3Env = {
  SCAN_VERSIONS: Type.Boolean({
    default: false,
    description:
      '`s3`: list object versions (ListObjectVersions) to report versions, delete markers and noncurrent bytes.',
  }),
  S3_LIST_RANGES: Type.Integer({
    default: 32,
    minimum: 0,
    maximum: 1000,
    description:
      "`s3`: key ranges one bucket's listing may be split into and listed at once, within `SCAN_CONCURRENCY` (one budget of listings in flight shared by every bucket: a range takes a slot no other bucket is waiting for). A bucket is split only once its listing has run 2 pages (2,000 keys) and a slot is spare; planning costs at most twice this many small ListObjectsV2 requests (common prefixes by Delimiter `/`, then one-key StartAfter probes for flat keys). The figures are those of one listing. 0 or 1: one listing per bucket.",
  }),
  MULTIPART_PARTS_MAX_UPLOADS: Type.Integer({
    default: 100,
    minimum: 0,
    maximum: 100000,
    description:
      '`s3`, with the `hidden` group of `BUCKET_METRICS`: incomplete multipart uploads sized per bucket and scan (ListParts, one request per 1,000 parts), in listing order; the others are counted by `bucket_multipart_uploads_unsized`. 0: none sized.',
  }),
  MULTIPART_STALE_DAYS: Type.Integer({
    default: 7,
    minimum: 0,
    maximum: 36500,
    description:
      "`s3`, with the `hidden` group of `BUCKET_METRICS`: an incomplete multipart upload initiated at least this many days before the scan started is stale (`bucket_multipart_uploads_stale*`; 7 is Storage Lens's split).",
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
  S3_INVENTORY_DESTINATION: Type.String({
    default: '',
    pattern: describedPattern(
      '^([a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^/]+)*/?)?$',
      'a bucket name, then optionally /prefix (`inventories/s3`)',
    ),
    description:
      "`s3`: where S3 Inventory reports are delivered, `bucket/prefix` (read on the same endpoint with the same keys). Each selected bucket with an inventory under `prefix/<bucket>/<config-id>/` is measured from its newest complete one (manifest.checksum present and matching) instead of a listing: no LIST request to the bucket, its figures as of the inventory's creation time (docs/inventory.md). Empty: every bucket is listed.",
  }),
  S3_INVENTORY_CONFIG_ID: Type.String({
    default: '',
    pattern: describedPattern(
      '^[A-Za-z0-9._-]{0,64}$',
      'an inventory configuration id (letters, digits, . _ -)',
    ),
    description:
      '`s3`, with `S3_INVENTORY_DESTINATION`: the inventory configuration to read where a bucket has several; a bucket without it is listed. Empty: the only one (a bucket with several fails, naming them).',
  }),
  S3_INVENTORY_MISSING: StringEnum(['list', 'skip'] as const, {
    default: 'list',
    description:
      '`s3`, with `S3_INVENTORY_DESTINATION`: what becomes of a bucket without an inventory: `list` it as without one, or `skip` it (not measured, not exported).',
  }),
  S3_INVENTORY_MAX_FILE_BYTES: Type.Integer({
    default: 4294967296,
    minimum: 1048576,
    maximum: 1099511627776,
    description:
      "`s3`, with `S3_INVENTORY_DESTINATION`: the largest inventory data file read (default 4 GiB); a larger one fails its bucket. Files are streamed, never held: a Parquet file is written to the system's temporary folder while read, one at a time per bucket.",
  }),
  S3_INVENTORY_MAX_INFLATION: Type.Integer({
    default: 100,
    minimum: 2,
    maximum: 1100,
    description:
      "`s3`, with `S3_INVENTORY_DESTINATION`: the most a gzip CSV data file, or a Parquet file's Snappy pages, may inflate, as a multiple of its size in the manifest (default 100; AWS's CSV inventories inflate about tenfold, a gzip stream at most about 1,030-fold; a Parquet page counts its inflated bytes plus 8 bytes per value it declares, and a page declaring more than is left is refused before its memory is taken). Past it the file is not inflated further and its bucket fails with `inflates past ... (S3_INVENTORY_MAX_INFLATION ...)`, its last good figures kept: a gzip bomb costs that many bytes of work, not the scan's whole timeout.",
  }),
  S3_BUCKET_SETTINGS: Type.Boolean({
    default: false,
    description:
      "`s3`, with the `info` group of `BUCKET_METRICS`: read each bucket's settings every scan for `bucket_info` (GetBucketVersioning, GetObjectLockConfiguration, GetBucketLifecycleConfiguration: three requests per bucket). A call the store does not implement leaves its label empty.",
  }),
  BUCKET_TAG_LABELS: Type.String({
    default: '',
    description:
      '`s3`, with the `info` group of `BUCKET_METRICS`: comma-separated bucket tag keys exported as `bucket_tag_info` (GetBucketTagging, one request per bucket per scan), each as `key` (label name: the key with every character but letters, digits and _ as _) or `key=label_name`; at most 16, two keys on one name refused. Empty: no tags read.',
  }),
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

/**
 * BUCKET_TAG_LABELS: which bucket tags become bucket_tag_info series, and under which label name.
 * `team,cost-center=cost_center,app.kubernetes.io/name`: a tag key alone takes its sanitised
 * form as label name (every character but letters, digits and _ becomes _, a leading digit gets
 * a _ before it); `key=name` names it. Two keys mapping to one name are refused at start, as are
 * names Prometheus reserves (`__...`) and more than MAX_TAG_LABELS keys. The config reads this
 * (src/config/load.ts) to refuse a bad list at start.
 */

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/** A tag key as a Prometheus label name. */
export function sanitiseLabelName(key: string): string {
  const replaced = key.replace(/[^a-zA-Z0-9_]/g, '_')
  return /^[0-9]/.test(replaced) ? `_${replaced}` : replaced
}

export interface TagLabels {
  /** Tag key -> label name. */
  readonly labels: ReadonlyMap<string, string>
  /** One line each, naming BUCKET_TAG_LABELS. */
  readonly problems: readonly string[]
}

export function parseTagLabels(text: string): TagLabels {
  const labels = new Map<string, string>()
  const problems: string[] = []
  const keyOf = new Map<string, string>()
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  if (items.length > MAX_TAG_LABELS) {
    problems.push(`BUCKET_TAG_LABELS: expected at most ${MAX_TAG_LABELS} tag keys, got ${items.length}`)
  }
  // Past the bound, that one line says it: not a line per item of a list of thousands.
  for (const item of items.length > MAX_TAG_LABELS ? [] : items) {
    const equals = item.lastIndexOf('=')
    const key = (equals < 0 ? item : item.slice(0, equals)).trim()
    const name = equals < 0 ? sanitiseLabelName(key) : item.slice(equals + 1).trim()
    if (key === '' || key.length > 128) {
      problems.push(`BUCKET_TAG_LABELS: ${shownValue(item)}: expected a tag key of 1 to 128 characters`)
    } else if (!LABEL_NAME.test(name) || name.startsWith('__')) {
      problems.push(
        `BUCKET_TAG_LABELS: ${shownValue(item)}: expected a label name (letters, digits, _, not starting with a digit or __), got ${shownValue(name)}`,
      )
    } else if (labels.has(key)) {
      problems.push(`BUCKET_TAG_LABELS: tag key ${shownValue(key)} is listed twice`)
    } else if (keyOf.has(name)) {
      problems.push(
        `BUCKET_TAG_LABELS: tag keys ${shownValue(keyOf.get(name) ?? '')} and ${shownValue(key)} both map to label ${name}; name one with key=label`,
      )
    } else {
      labels.set(key, name)
      keyOf.set(name, key)
    }
  }
  return { labels, problems }
}
