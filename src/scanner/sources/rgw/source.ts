import { defaultProvider } from '@aws-sdk/credential-provider-node'
import { ALL_FOLDS, type ScanFolds } from '../../../config/bucket-groups.js'
import { withoutCredentials } from '../../../config/url-credentials.js'
import { boundedValue } from '../../bucket-settings.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from '../../retry.js'
import { RequestCounter } from '../request-counter.js'
import { type BucketUsage, type ScanRound, SourceError, type UsageSource } from '../types.js'
import { RgwAdminClient } from './admin.js'
import { classifyRgwError } from './errors.js'
import { DEFAULT_INDEX_LIMITS, type IndexLimits, indexFill } from './index-fill.js'
import { categoryUsage, RGW_MAIN, RGW_MULTIMETA, type RgwBucketStats, type RgwStatsEntry } from './stats.js'

export interface RgwSourceOptions {
  /** The RGW endpoint (S3_ENDPOINT); the admin API lives under it. */
  readonly endpoint: string
  readonly region: string
  /** Both empty: the AWS SDK's default credential chain. */
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** RGW's `rgw admin entry` (RGW_ADMIN_PATH). */
  readonly adminPath: string
  readonly retry?: RetryPolicy
  /** Bound on the one admin request of a scan. */
  readonly requestTimeoutMs?: number
  /** RGW_MAX_RESPONSE_BYTES: the admin answer is not read past this many bytes. */
  readonly maxResponseBytes?: number
  /** RGW_SAFE_MAX_OBJECTS_PER_SHARD, RGW_SHARD_WARNING_PERCENT: RGW's limits for the index fill. */
  readonly indexLimits?: IndexLimits
  /** Which opt-in figures to keep: owner and tenant (`info`), the index fill (`index`); default all. */
  readonly folds?: Pick<ScanFolds, 'info' | 'index'>
}

/**
 * Ceph RGW's admin API as a bulk source: one signed `GET /admin/bucket?stats=true` per scan gives
 * every bucket's counters from RGW's bucket index, instead of a listing of every object.
 *
 * Mapping (docs/sources.md, "rgw"): `rgw.main` size and object count become the bucket's bytes and
 * objects; RGW counts every stored version there (noncurrent ones too, delete markers not) and the
 * parts of incomplete multipart uploads, so versioned buckets and abandoned uploads read higher
 * than a listing of current objects. `rgw.multimeta` entries are incomplete multipart uploads. An
 * enabled bucket quota with a byte limit is the quota. Size distributions, newest/oldest object,
 * storage classes, versions and delete markers are not in the counters: those families are absent.
 */
export function createRgwSource(options: RgwSourceOptions): UsageSource {
  return new RgwUsageSource(options)
}

class RgwUsageSource implements UsageSource {
  readonly name = 'rgw'
  readonly id: string
  readonly #client: RgwAdminClient
  readonly #retry: RetryPolicy
  readonly #indexLimits: IndexLimits
  readonly requests = new RequestCounter('rgw_admin')
  readonly #folds: Pick<ScanFolds, 'info' | 'index'>

  constructor(options: RgwSourceOptions) {
    this.#indexLimits = options.indexLimits ?? DEFAULT_INDEX_LIMITS
    this.#folds = options.folds ?? ALL_FOLDS
    this.id = `rgw:${withoutCredentials(options.endpoint)}`
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY
    const explicitKeys = options.accessKeyId !== '' && options.secretAccessKey !== ''
    this.#client = new RgwAdminClient({
      endpoint: options.endpoint,
      region: options.region,
      adminPath: options.adminPath,
      counter: this.requests,
      credentials: explicitKeys
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : defaultProvider(),
      ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
    })
  }

  async beginScan({ signal, fixedBuckets }: { signal: AbortSignal; fixedBuckets?: readonly string[] }) {
    const stats = await withRetry(
      async () => {
        try {
          return await this.#client.listBucketStatsEntries(signal)
        } catch (error) {
          throw classifyRgwError(error)
        }
      },
      {
        policy: this.#retry,
        signal,
        isRetryable: (error) => error instanceof SourceError && error.retryable,
      },
    )
    const byName = new Map<string, RgwStatsEntry>()
    for (const entry of stats) byName.set(bucketName(entry), entry)
    const round: ScanRound = {
      buckets: fixedBuckets ?? [...byName.keys()],
      measure: async (bucket) => {
        const entry = byName.get(bucket)
        if (!entry) throw new SourceError(`bucket ${bucket} is not in RGW's bucket stats`, 'missing')
        // Figures that are not counts fail this bucket alone; the others are measured.
        if ('error' in entry) {
          throw new SourceError(`RGW admin API bucket stats: ${entry.error.message}`, 'failed', {
            cause: entry.error,
          })
        }
        return usageFromStats(entry.stats, this.#indexLimits, this.#folds)
      },
    }
    return round
  }

  async close(): Promise<void> {}
}

/** A bucket of a named tenant is addressed `tenant:bucket` in S3 requests to RGW; so is it labelled. */
export function bucketName(stats: { readonly bucket: string; readonly tenant: string }): string {
  return stats.tenant ? `${stats.tenant}:${stats.bucket}` : stats.bucket
}

/**
 * What the admin API's counters say about one bucket, in the scanner's terms; the opt-in figures
 * (owner and tenant, index fill) only when `folds` asks for them.
 */
export function usageFromStats(
  stats: RgwBucketStats,
  limits = DEFAULT_INDEX_LIMITS,
  folds: Pick<ScanFolds, 'info' | 'index'> = ALL_FOLDS,
): BucketUsage {
  const main = categoryUsage(stats, RGW_MAIN)
  const quota = stats.quota
  const index = folds.index ? indexFill(stats, limits) : undefined
  return {
    bytes: main.sizeBytes,
    objects: main.objects,
    multipart: { incomplete: categoryUsage(stats, RGW_MULTIMETA).objects },
    ...(quota?.enabled && quota.maxSizeBytes !== undefined ? { quotaBytes: quota.maxSizeBytes } : {}),
    // bucket_info: who owns it and its tenant ('' for the global one); the admin API's bucket
    // stats carry no versioning, object lock, lifecycle or tags, so those labels stay empty.
    ...(folds.info
      ? { settings: { owner: boundedValue(stats.owner), tenant: boundedValue(stats.tenant) } }
      : {}),
    ...(index ? { index } : {}),
  }
}
