/**
 * The admin API's bucket-stats answers, parsed and checked: every figure a whole count, every
 * bucket named; a bucket whose figures are not counts is an entry with an error, so it fails alone.
 */
import { isCount } from '../../record/bucket-usage.js'

/** Usage of one RGW storage category (`rgw.main`, `rgw.multimeta`, `rgw.none`, `rgw.shadow`...). */
export interface RgwCategoryUsage {
  /** Logical bytes (what clients uploaded). */
  readonly sizeBytes: number
  /** Bytes rounded up to RGW's 4 KiB allocation unit, per object. */
  readonly actualSizeBytes: number
  /** Bytes after compression (equals sizeBytes without compression); absent before Ceph 15. */
  readonly utilizedBytes: number | undefined
  readonly objects: number
}

interface RgwBucketQuota {
  readonly enabled: boolean
  /** Bytes, or undefined when no byte limit is set (RGW writes -1). */
  readonly maxSizeBytes: number | undefined
  /** Objects, or undefined when no object limit is set (RGW writes -1). */
  readonly maxObjects: number | undefined
}

export interface RgwBucketStats {
  /** The bucket's name as S3 clients see it (without the tenant). */
  readonly bucket: string
  /** The tenant, '' for the default (global) tenant. */
  readonly tenant: string
  readonly owner: string
  /** Per storage category, keyed by RGW's category name (`rgw.main`...). Empty for an empty bucket. */
  readonly usage: ReadonlyMap<string, RgwCategoryUsage>
  readonly quota: RgwBucketQuota | undefined
  /** Creation time in ms since the epoch, when RGW reports it. */
  readonly createdMs: number | undefined
  /** Index shards (`num_shards`); undefined when not reported or the bucket is indexless. */
  readonly shards: number | undefined
}

/** The category holding objects (every version) and the parts of incomplete multipart uploads. */
export const RGW_MAIN = 'rgw.main'
/** One entry per incomplete multipart upload (its meta object; size 0). */
export const RGW_MULTIMETA = 'rgw.multimeta'

export class RgwAdminResponseError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RgwAdminResponseError'
  }
}

type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** JSON.stringify, except for what it cannot show (1e400 parses to Infinity, shown as null). */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))
}

/** A byte or object count: a non-negative safe integer (above 2^53 the figure is no longer exact). */
export function count(value: unknown, where: string): number {
  if (typeof value !== 'number' || !isCount(value)) {
    throw new RgwAdminResponseError(`${where}: expected a whole number from 0 to 2^53-1, got ${shown(value)}`)
  }
  return value
}

/** A quota limit: RGW writes -1 for "no limit"; absent is no limit too. Anything else is refused. */
export function limit(value: unknown, where: string): number | undefined {
  if (value === undefined || (Number.isSafeInteger(value) && (value as number) < 0)) return undefined
  return count(value, where)
}

function parseCategory(value: unknown, where: string): RgwCategoryUsage {
  if (!isObject(value)) throw new RgwAdminResponseError(`${where}: expected an object`)
  return {
    sizeBytes: count(value.size, `${where}.size`),
    actualSizeBytes: count(value.size_actual, `${where}.size_actual`),
    utilizedBytes:
      value.size_utilized === undefined ? undefined : count(value.size_utilized, `${where}.size_utilized`),
    objects: count(value.num_objects, `${where}.num_objects`),
  }
}

function parseQuota(value: unknown, where: string): RgwBucketQuota | undefined {
  if (!isObject(value)) return undefined
  return {
    enabled: value.enabled === true,
    maxSizeBytes: limit(value.max_size, `${where}.max_size`),
    maxObjects: limit(value.max_objects, `${where}.max_objects`),
  }
}

function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  // RGW writes "2026-12-02T14:13:03.481915Z" (microseconds); Date.parse keeps the milliseconds.
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

/** One element of the array `GET /admin/bucket?stats=true` answers (also the whole answer for `&bucket=`). */
export function parseBucketStats(value: unknown, where = 'bucket'): RgwBucketStats {
  if (!isObject(value)) throw new RgwAdminResponseError(`${where}: expected an object`)
  if (typeof value.bucket !== 'string' || value.bucket === '') {
    throw new RgwAdminResponseError(`${where}.bucket: expected a bucket name`)
  }
  const name = value.bucket
  const usage = new Map<string, RgwCategoryUsage>()
  // A bucket that never held an object answers "usage": {} (or no usage at all on old releases).
  if (value.usage !== undefined) {
    if (!isObject(value.usage)) throw new RgwAdminResponseError(`${where}(${name}).usage: expected an object`)
    for (const [category, figures] of Object.entries(value.usage)) {
      usage.set(category, parseCategory(figures, `${where}(${name}).usage.${category}`))
    }
  }
  return {
    bucket: name,
    tenant: typeof value.tenant === 'string' ? value.tenant : '',
    owner: typeof value.owner === 'string' ? value.owner : '',
    usage,
    quota: parseQuota(value.bucket_quota, `${where}(${name}).bucket_quota`),
    createdMs: parseTime(value.creation_time),
    shards:
      value.num_shards === undefined || value.index_type === 'Indexless'
        ? undefined
        : count(value.num_shards, `${where}(${name}).num_shards`),
  }
}

/** The whole answer of `GET /admin/bucket?stats=true&format=json` (no `bucket=`): an array. */
export function parseBucketStatsList(value: unknown): RgwBucketStats[] {
  return parseBucketStatsEntries(value).map((entry) => {
    if ('error' in entry) throw entry.error
    return entry.stats
  })
}

/** One bucket of the answer: its figures, or why they were refused (the other buckets still count). */
export type RgwStatsEntry =
  | { readonly bucket: string; readonly tenant: string; readonly stats: RgwBucketStats }
  | { readonly bucket: string; readonly tenant: string; readonly error: RgwAdminResponseError }

/**
 * The whole answer, bucket by bucket: an element with a bucket name but figures that are not
 * counts (a negative size, `"abc"`, 1e400) is refused alone. An answer that is not an array, or
 * an element that names no bucket, is refused whole.
 */
export function parseBucketStatsEntries(value: unknown): RgwStatsEntry[] {
  if (!Array.isArray(value)) {
    throw new RgwAdminResponseError('expected an array of bucket stats (was stats=true sent?)')
  }
  return value.map((element, index) => {
    const where = `[${index}]`
    if (!isObject(element)) throw new RgwAdminResponseError(`${where}: expected an object`)
    if (typeof element.bucket !== 'string' || element.bucket === '') {
      throw new RgwAdminResponseError(`${where}.bucket: expected a bucket name`)
    }
    const bucket = element.bucket
    const tenant = typeof element.tenant === 'string' ? element.tenant : ''
    try {
      return { bucket, tenant, stats: parseBucketStats(element, where) }
    } catch (error) {
      if (!(error instanceof RgwAdminResponseError)) throw error
      return { bucket, tenant, error }
    }
  })
}

/** Figures of one category, zeros when the bucket has none in it. */
export function categoryUsage(stats: RgwBucketStats, category: string): RgwCategoryUsage {
  return stats.usage.get(category) ?? { sizeBytes: 0, actualSizeBytes: 0, utilizedBytes: 0, objects: 0 }
}
