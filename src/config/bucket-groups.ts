/*
 * The BUCKET_METRICS vocabulary, and what a scan folds from it. BUCKET_METRICS names groups of
 * per-bucket families; the opt-in groups ("where the bytes went") each cost the scan work the
 * default groups do not need (an age band per object, a prefix sketch, ListParts and bucket
 * settings requests billed to the store's owner), so a scan does that work only for the groups
 * that are written. The words are checked here, at load, so check-config, serve and `scan --once`
 * refuse the same values with the same line; each per-bucket family names one of these groups
 * (src/figures/ and src/collectors/usage-series.ts and its neighbours; a unit test holds the two
 * lists equal).
 */

import { shownValue } from './shown-value.js'

/** Every BUCKET_METRICS group, in the order their families are exposed. */
export const BUCKET_GROUPS = [
  'usage',
  'versions',
  'quota',
  'sizes',
  'times',
  'storage_class',
  'multipart',
  'age',
  'hidden',
  'prefixes',
  'info',
  'index',
  'usage_log',
  'scan',
] as const
export type BucketGroup = (typeof BUCKET_GROUPS)[number]

/** The BUCKET_METRICS groups an empty value (or `default`) leaves out: each asks the scan for work. */
export const OPT_IN_BUCKET_GROUPS = [
  'age',
  'hidden',
  'prefixes',
  'info',
  'index',
  'usage_log',
] as const satisfies readonly BucketGroup[]
export type OptInBucketGroup = (typeof OPT_IN_BUCKET_GROUPS)[number]

/** The groups an empty BUCKET_METRICS (or the word `default` in it) stands for. */
export const DEFAULT_BUCKET_GROUPS: readonly BucketGroup[] = BUCKET_GROUPS.filter(
  (group) => !(OPT_IN_BUCKET_GROUPS as readonly string[]).includes(group),
)

/** The words BUCKET_METRICS takes besides the groups. */
const SET_WORDS = ['default', 'all'] as const

function isBucketGroup(word: string): word is BucketGroup {
  return (BUCKET_GROUPS as readonly string[]).includes(word)
}

/** The line refusing BUCKET_METRICS's words that are no group, or undefined when each is one. */
function bucketMetricsProblem(bucketMetrics: string): string | undefined {
  const unknown = bucketMetricWords(bucketMetrics).filter(
    (word) => !isBucketGroup(word) && !(SET_WORDS as readonly string[]).includes(word),
  )
  if (unknown.length === 0) return undefined
  // Quoted cut short and at most five of them: a pasted 100 kB value is not echoed whole.
  const named = unknown.slice(0, 5).map((word) => shownValue(word))
  if (unknown.length > 5) named.push(`and ${unknown.length - 5} more`)
  return `BUCKET_METRICS: unknown group ${named.join(', ')}; expected a comma-separated list of ${[...BUCKET_GROUPS, ...SET_WORDS].join(', ')}`
}

/**
 * The groups BUCKET_METRICS writes, in exposition order whatever order they were named in (so
 * two spellings are one setting): `all` every group, empty or `default` the default ones, plus
 * those named. A word that is no group adds none (load refuses it: bucketMetricsProblem).
 */
function bucketGroupsOf(bucketMetrics: string): readonly BucketGroup[] {
  const words = bucketMetricWords(bucketMetrics)
  if (words.includes('all')) return BUCKET_GROUPS
  const asked = new Set<string>(words.filter(isBucketGroup))
  if (words.length === 0 || words.includes('default'))
    for (const group of DEFAULT_BUCKET_GROUPS) asked.add(group)
  return BUCKET_GROUPS.filter((group) => asked.has(group))
}

/**
 * Default groups whose figures cost the scan requests of their own: asked only while written
 * (BUCKET_METRICS empty, `default`, `all`, or the group named).
 */
const SCANNED_DEFAULT_GROUPS = ['multipart'] as const satisfies readonly BucketGroup[]
type ScannedDefaultGroup = (typeof SCANNED_DEFAULT_GROUPS)[number]

/**
 * What a scan folds or asks the store, one switch per group whose figures cost work of their own:
 * - `multipart` (a default group): the incomplete uploads (s3: ListMultipartUploads, which
 *   `hidden` needs too);
 * - `age`: bytes and objects per last-modified age band, and per storage class and band;
 * - `hidden`: noncurrent versions per age band, expired delete markers, and the bytes of incomplete
 *   multipart uploads (ListParts) with the stale ones (their count and oldest start are `multipart`'s,
 *   noncurrent bytes and versions `versions`');
 * - `prefixes`: bytes and objects per key prefix (the sketch of PREFIX_*);
 * - `info`: ownership and settings (s3: S3_BUCKET_SETTINGS and BUCKET_TAG_LABELS requests; rgw:
 *   owner and tenant);
 * - `index`: rgw's index shards and their fill;
 * - `usage_log`: rgw's usage log (one GET /admin/usage a scan, which can be large).
 */
export type ScanFolds = Readonly<Record<OptInBucketGroup | ScannedDefaultGroup, boolean>>

/** Every fold: what a source does when it is not told otherwise (tests, benches). */
export const ALL_FOLDS: ScanFolds = Object.freeze({
  multipart: true,
  age: true,
  hidden: true,
  prefixes: true,
  info: true,
  index: true,
  usage_log: true,
})

/** The folds BUCKET_METRICS asks for: those of the groups it writes (bucketGroupsOf). */
export function scanFoldsOf(bucketMetrics: string): ScanFolds {
  const written = bucketGroupsOf(bucketMetrics)
  return Object.freeze(
    Object.fromEntries(
      [...OPT_IN_BUCKET_GROUPS, ...SCANNED_DEFAULT_GROUPS].map((group) => [group, written.includes(group)]),
    ) as Record<OptInBucketGroup | ScannedDefaultGroup, boolean>,
  )
}

/** BUCKET_METRICS read for the Config: the line refusing it, or the groups written and the folds. */
export function parseBucketMetrics(bucketMetrics: string): {
  readonly problems: readonly string[]
  readonly parsed: { readonly BUCKET_GROUPS: readonly BucketGroup[]; readonly SCAN_FOLDS: ScanFolds }
} {
  const problem = bucketMetricsProblem(bucketMetrics)
  return {
    problems: problem === undefined ? [] : [problem],
    parsed: { BUCKET_GROUPS: bucketGroupsOf(bucketMetrics), SCAN_FOLDS: scanFoldsOf(bucketMetrics) },
  }
}

/** BUCKET_METRICS's words (groups, `default`, `all`), as the scan folds and the budget read them. */
export function bucketMetricWords(bucketMetrics: string): string[] {
  return bucketMetrics
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '')
}
