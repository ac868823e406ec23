import { Type } from '@sinclair/typebox'
import {
  BucketFilterSyntaxError,
  parseGlobList,
  parseNameList,
  parseShard,
  type Shard,
} from '../bucket-selection.js'
import { describedPattern, StringEnum } from '../schema-helpers.js'

/** Usage sources a scan can read; each is one file under src/scanner/sources/. */
export const USAGE_SOURCES = ['fs', 's3', 'rgw'] as const

/** The background bucket-usage scanner, its bucket selection, and the S3 endpoint it may read. */
export const scannerEnv = {
  BUCKETS_SOURCE: StringEnum(USAGE_SOURCES, {
    default: 'fs',
    description:
      "Where bucket usage comes from: `fs` (one folder per bucket under `DATA_DIR`), `s3` (an S3-compatible endpoint, listed) or `rgw` (Ceph RGW's admin API counters, one request per scan).",
  }),
  SCAN_INTERVAL_SECONDS: Type.Number({
    default: 300,
    minimum: 1,
    maximum: 604800,
    description:
      'Pause between the end of one usage scan and the start of the next (plus or minus 10% jitter). Scrapes never wait for a scan.',
  }),
  SCAN_CONCURRENCY: Type.Integer({
    default: 4,
    minimum: 1,
    maximum: 256,
    description: 'Buckets measured at once during a scan.',
  }),
  SCAN_TIMEOUT_SECONDS: Type.Number({
    default: 900,
    exclusiveMinimum: 0,
    maximum: 86400,
    description:
      'Upper bound for measuring one bucket, and for listing the buckets; a bucket that takes longer counts as failed for that scan, a listing that takes longer as the source down.',
  }),
  SCAN_VERSIONS: Type.Boolean({
    default: false,
    description:
      '`s3`: list object versions (ListObjectVersions) to report versions, delete markers and noncurrent bytes.',
  }),
  BUCKETS: Type.String({
    default: '',
    description:
      'Comma-separated fixed bucket list, used instead of listing buckets (for credentials that may not call ListBuckets). Empty: every bucket.',
  }),
  BUCKETS_INCLUDE: Type.String({
    default: '',
    description:
      'Comma-separated glob patterns (`*`, `?`, `[a-z]`, `[!x]`); when set, only matching buckets are measured.',
  }),
  BUCKETS_EXCLUDE: Type.String({
    default: '',
    description: 'Comma-separated glob patterns of buckets never measured (wins over `BUCKETS_INCLUDE`).',
  }),
  SHARD: Type.String({
    default: '',
    description:
      '`i/n` (0 <= i < n): measure only the buckets whose FNV-1a 32-bit name hash modulo n is i, so n replicas split the buckets. Empty: all.',
  }),
  STATE_FILE: Type.String({
    default: '',
    description:
      'File where the last usage snapshot is written after each scan and read at start, so a restart serves figures at once. Empty: none.',
  }),
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
  S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description:
      '`s3`: address buckets as `endpoint/bucket` instead of `bucket.endpoint` (most non-AWS stores need it).',
  }),
  S3_MAX_RESPONSE_BYTES: Type.Integer({
    default: 33554432,
    minimum: 65536,
    maximum: 1073741824,
    description:
      '`s3`: the most bytes one answer of the store may hold (default 32 MiB; a page of 1,000 keys of 1,024 bytes is about 1.5 MB). Past it the answer is not read further and its bucket (or the bucket listing) fails with "answer larger than S3_MAX_RESPONSE_BYTES"; memory stays bounded whatever the store sends.',
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

export const SCANNER_SECRET_VARIABLES = ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const

interface ScannerVariables {
  readonly BUCKETS: string
  readonly BUCKETS_INCLUDE: string
  readonly BUCKETS_EXCLUDE: string
  readonly SHARD: string
}

/** The bucket selection as the configuration holds it: parsed once, at start-up. */
export interface BucketSelection {
  /** BUCKETS: measure exactly these instead of listing; empty for every bucket. */
  readonly BUCKETS: readonly string[]
  readonly BUCKETS_INCLUDE: readonly RegExp[]
  readonly BUCKETS_EXCLUDE: readonly RegExp[]
  /** SHARD; undefined for no sharding. */
  readonly SHARD: Shard | undefined
}

/**
 * Parses the bucket selection, and checks what the schema cannot: glob syntax and SHARD, one line
 * each naming the variable. (The S3 key pair, each required with the other, is in
 * ../requirements.ts.) The values are meaningful only when `problems` is empty.
 */
export function parseBucketSelection(raw: ScannerVariables): {
  readonly selection: BucketSelection
  readonly problems: string[]
} {
  const problems: string[] = []
  const globs = (name: 'BUCKETS_INCLUDE' | 'BUCKETS_EXCLUDE'): RegExp[] => {
    try {
      return parseGlobList(raw[name])
    } catch (error) {
      if (!(error instanceof BucketFilterSyntaxError)) throw error
      problems.push(
        `${name}=${JSON.stringify(raw[name])}: expected comma-separated glob patterns: ${error.message}`,
      )
      return []
    }
  }
  const include = globs('BUCKETS_INCLUDE')
  const exclude = globs('BUCKETS_EXCLUDE')
  let shard: Shard | undefined
  try {
    shard = parseShard(raw.SHARD)
  } catch (error) {
    if (!(error instanceof BucketFilterSyntaxError)) throw error
    problems.push(`SHARD=${JSON.stringify(raw.SHARD)}: ${error.message}`)
  }
  const selection = Object.freeze({
    BUCKETS: Object.freeze(parseNameList(raw.BUCKETS)),
    BUCKETS_INCLUDE: Object.freeze(include),
    BUCKETS_EXCLUDE: Object.freeze(exclude),
    SHARD: shard === undefined ? undefined : Object.freeze(shard),
  })
  return { selection, problems }
}
