import { Type } from '@sinclair/typebox'
import { describeSources, SOURCE_NAMES } from '../../sources/list.js'
import {
  BucketFilterSyntaxError,
  type Glob,
  MAX_GLOB_LENGTH,
  MAX_GLOBS,
  parseGlobList,
  parseNameList,
  parseShard,
  type Shard,
} from '../bucket-selection.js'
import { StringEnum } from '../schema-helpers.js'
import { shownValue } from '../shown-value.js'

/**
 * The background bucket-usage scanner and its bucket selection. BUCKETS_SOURCE's values come from
 * the source list; each source's own variables are in its folder (src/sources/<name>/).
 */
export const scannerEnv = {
  BUCKETS_SOURCE: StringEnum(SOURCE_NAMES, {
    default: SOURCE_NAMES[0],
    description: `Where bucket usage comes from: ${describeSources()}.`,
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
    description:
      'Listings in flight during a scan: buckets measured at once, and with `s3` the key ranges of a long bucket (`S3_LIST_RANGES`) in the slots no other bucket is waiting for.',
  }),
  SCAN_TIMEOUT_SECONDS: Type.Number({
    default: 900,
    exclusiveMinimum: 0,
    maximum: 86400,
    description:
      'Upper bound for measuring one bucket, and for listing the buckets; a bucket that takes longer counts as failed for that scan, a listing that takes longer as the source down.',
  }),
  SCAN_FULL_EVERY: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 10000,
    description:
      '`s3`: a bucket of at least `SCAN_SUBTOTALS_MIN_OBJECTS` objects keeps a subtotal per key range, and a round lists again only its dirty ranges (a change event named a key in them, or their last listing failed) and the clean ranges whose turn it is, so every range is listed again at least every this many rounds whatever events said ([incremental scans](incremental-scans.md)). 1: every bucket listed whole every round.',
  }),
  SCAN_SUBTOTALS_MIN_OBJECTS: Type.Integer({
    default: 1000000,
    minimum: 1000,
    maximum: 1000000000000,
    description:
      '`s3`, with `SCAN_FULL_EVERY` above 1: current objects a bucket holds, by its last listing, from which it keeps per-range subtotals; a bucket with subtotals keeps them until its ranges hold fewer than half of this entries (objects, or versions and delete markers with `SCAN_VERSIONS`). Smaller buckets are listed whole every round.',
  }),
  SCAN_RANGE_MAX_OBJECTS: Type.Integer({
    default: 100000,
    minimum: 100,
    maximum: 100000000,
    description:
      '`s3`: entries one key range of a bucket with subtotals holds at most: a range listed again that holds more is split into ranges of half this, and neighbours that together hold at most half this are merged. A range costs its entries / 1,000 LIST requests when listed again, and its subtotal (some 2 KB) in the state file.',
  }),
  BUCKETS: Type.String({
    default: '',
    description:
      'Comma-separated fixed bucket list, used instead of listing buckets (for credentials that may not call ListBuckets). Empty: every bucket.',
  }),
  BUCKETS_INCLUDE: Type.String({
    default: '',
    description: `Comma-separated glob patterns (\`*\`, \`?\`, \`[a-z]\`, \`[!x]\`), at most ${MAX_GLOBS} of ${MAX_GLOB_LENGTH} characters each; when set, only matching buckets are measured.`,
  }),
  BUCKETS_EXCLUDE: Type.String({
    default: '',
    description: `Comma-separated glob patterns of buckets never measured (wins over \`BUCKETS_INCLUDE\`), at most ${MAX_GLOBS} of ${MAX_GLOB_LENGTH} characters each.`,
  }),
  SHARD: Type.String({
    default: '',
    description:
      '`i/n` (0 <= i < n): measure only the buckets whose FNV-1a 32-bit name hash modulo n is i, so n replicas split the buckets. Empty: all.',
  }),
  STATE_FILE: Type.String({
    default: '',
    description:
      'File where the last usage snapshot is written after each scan and read at start, so a restart serves figures at once: a regular file, a link to one, or a path where none exists yet (anything else, a device or a FIFO, is refused at start). Empty: none.',
  }),
  STATE_FILE_TIMEOUT_SECONDS: Type.Number({
    default: 30,
    exclusiveMinimum: 0,
    maximum: 3600,
    description:
      'How long the state file may go without answering (a check, an open, a read, a write) before it is given up for now, as on a hung network mount: the load is abandoned and the buckets scanned instead, a write left pending and the next one skipped. The server listens meanwhile; /readyz waits for the figures.',
  }),
}

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
  readonly BUCKETS_INCLUDE: readonly Glob[]
  readonly BUCKETS_EXCLUDE: readonly Glob[]
  /** SHARD; undefined for no sharding. */
  readonly SHARD: Shard | undefined
}

/**
 * Parses the bucket selection, and checks what the schema cannot: glob syntax and SHARD, one line
 * each naming the variable. (A source's requirements are in its folder.) The values are meaningful only when `problems` is empty.
 */
export function parseBucketSelection(raw: ScannerVariables): {
  readonly selection: BucketSelection
  readonly problems: string[]
} {
  const problems: string[] = []
  const globs = (name: 'BUCKETS_INCLUDE' | 'BUCKETS_EXCLUDE'): Glob[] => {
    try {
      return parseGlobList(raw[name])
    } catch (error) {
      if (!(error instanceof BucketFilterSyntaxError)) throw error
      problems.push(
        `${name}=${shownValue(raw[name])}: expected comma-separated glob patterns: ${error.message}`,
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
    problems.push(`SHARD=${shownValue(raw.SHARD)}: ${error.message}`)
  }
  const selection = Object.freeze({
    BUCKETS: Object.freeze(parseNameList(raw.BUCKETS)),
    BUCKETS_INCLUDE: Object.freeze(include),
    BUCKETS_EXCLUDE: Object.freeze(exclude),
    SHARD: shard === undefined ? undefined : Object.freeze(shard),
  })
  return { selection, problems }
}
