/*
 * What a scan folds, from BUCKET_METRICS: the opt-in groups of per-bucket families ("where the
 * bytes went") each cost the scan work the default groups do not need (an age band per object, a
 * prefix sketch, ListParts and bucket settings requests billed to the store's owner), so a scan
 * does that work only for the groups that are written. The groups' families are declared by the
 * collectors (src/collectors/usage-budget.ts checks BUCKET_METRICS against them); which groups are
 * opt-in, and what each makes the scan do, is said here, below the scanner, which reads it.
 */

/** The BUCKET_METRICS groups an empty value (or `default`) leaves out: each asks the scan for work. */
export const OPT_IN_BUCKET_GROUPS = ['age', 'hidden', 'prefixes', 'info', 'index', 'usage_log'] as const
export type OptInBucketGroup = (typeof OPT_IN_BUCKET_GROUPS)[number]

/**
 * Default groups whose figures cost the scan requests of their own: asked only while written
 * (BUCKET_METRICS empty, `default`, `all`, or the group named).
 */
export const SCANNED_DEFAULT_GROUPS = ['multipart'] as const
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

/**
 * The folds BUCKET_METRICS asks for: an opt-in group is folded when it is named or `all` is, a
 * default one also when BUCKET_METRICS is empty or names `default`.
 * (Unknown names are refused where the groups are declared, src/collectors/usage-exposition.ts.)
 */
export function scanFoldsOf(bucketMetrics: string): ScanFolds {
  const words = new Set(bucketMetricWords(bucketMetrics))
  const all = words.has('all')
  const defaults = all || words.size === 0 || words.has('default')
  return Object.freeze(
    Object.fromEntries([
      ...OPT_IN_BUCKET_GROUPS.map((group) => [group, all || words.has(group)]),
      ...SCANNED_DEFAULT_GROUPS.map((group) => [group, defaults || words.has(group)]),
    ]) as Record<OptInBucketGroup | ScannedDefaultGroup, boolean>,
  )
}

/** BUCKET_METRICS's words (groups, `default`, `all`), as the scan folds and the budget read them. */
export function bucketMetricWords(bucketMetrics: string): string[] {
  return bucketMetrics
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '')
}
