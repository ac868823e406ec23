import { defaultProvider } from '@aws-sdk/credential-provider-node'
import type { Logger } from 'pino'
import { ALL_FOLDS, type ScanFolds } from '../../config/bucket-groups.js'
import { withoutCredentials } from '../../config/url-credentials.js'
import { boundedValue } from '../../figures/label-values.js'
import { advanceUsageLog, usageLogReadStart } from '../../figures/usage-log/counters.js'
import type { UsageLog } from '../../figures/usage-log/index.js'
import { RequestCounter } from '../request-counter.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from '../retry.js'
import {
  type BeginScanOptions,
  type BucketUsage,
  type ScanRound,
  SourceError,
  type UsageSource,
} from '../types.js'
import { RgwAdminClient } from './admin.js'
import { bucketName } from './bucket-name.js'
import { classifyRgwError } from './errors.js'
import { DEFAULT_INDEX_LIMITS, type IndexLimits, indexFill } from './index-fill.js'
import { categoryUsage, RGW_MAIN, RGW_MULTIMETA, type RgwBucketStats, type RgwStatsEntry } from './stats.js'
import type { RgwUsageLog } from './usage-log.js'
import { readUsers } from './users.js'

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
  /** RGW_USER_METRICS: read each user's usage and quota (after the buckets). */
  readonly userMetrics?: boolean
  /** RGW_USERS_MAX: the most users measured a scan. */
  readonly usersMax?: number
  /** Where the usage log's and the user bound's trouble is reported, once per change. */
  readonly logger?: Logger
  /** Which opt-in figures to keep: owner and tenant (`info`), the index fill (`index`), the usage log (`usage_log`, read only then); default all. */
  readonly folds?: Pick<ScanFolds, 'info' | 'index' | 'usage_log'>
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
  readonly #options: RgwSourceOptions
  /** The usage log's last failure, logged once; undefined while it is read. */
  #usageLogFailure: string | undefined
  /** Users left out by RGW_USERS_MAX at the last report. */
  #omittedUsers = 0
  readonly requests = new RequestCounter('rgw_admin')
  readonly #folds: Pick<ScanFolds, 'info' | 'index' | 'usage_log'>

  constructor(options: RgwSourceOptions) {
    this.#options = options
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

  /** One admin request, retried as the source's policy says, its errors classified for `action`. */
  #call<T>(action: string, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    return withRetry(
      async () => {
        try {
          return await request()
        } catch (error) {
          throw classifyRgwError(error, action)
        }
      },
      {
        policy: this.#retry,
        signal,
        isRetryable: (error) => error instanceof SourceError && error.retryable,
      },
    )
  }

  async beginScan({ signal, fixedBuckets, previous }: BeginScanOptions) {
    const stats = await this.#call(BUCKET_STATS, signal, () => this.#client.listBucketStatsEntries(signal))
    const byName = new Map<string, RgwStatsEntry>()
    for (const entry of stats) byName.set(bucketName(entry), entry)
    const usageLog = this.#folds.usage_log
      ? await this.#readUsageLog(
          signal,
          usageLogReadStart([...byName.keys()].map((bucket) => previous?.(bucket)?.usageLog)),
        )
      : undefined
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
        const usage = usageFromStats(entry.stats, this.#indexLimits, this.#folds)
        const counters = usageLogOf(usageLog, bucket, previous?.(bucket)?.usageLog)
        return counters ? { ...usage, usageLog: counters } : usage
      },
      ...(this.#options.userMetrics
        ? {
            users: async (usersSignal: AbortSignal) => {
              const maxUsers = this.#options.usersMax ?? DEFAULT_USERS_MAX
              const users = await this.#call(USERS, usersSignal, () =>
                readUsers(this.#client, { maxUsers, signal: usersSignal }),
              )
              this.#reportOmitted(users.omitted, maxUsers)
              return users
            },
          }
        : {}),
    }
    return round
  }

  /**
   * The usage log, or why it was not read: refused (no `usage=read` cap) drops the counters, any
   * other failure keeps the last ones. Logged once per reason; the buckets' figures do not wait on it.
   */
  async #readUsageLog(signal: AbortSignal, start: number | undefined): Promise<UsageLogRead> {
    try {
      const log = await this.#call(USAGE_LOG, signal, () => this.#client.usageLog(signal, start))
      if (this.#usageLogFailure !== undefined) this.#options.logger?.info('RGW usage log read again')
      this.#usageLogFailure = undefined
      return { log }
    } catch (error) {
      if (signal.aborted) throw error
      const failure = error instanceof SourceError ? error : classifyRgwError(error, USAGE_LOG)
      if (this.#usageLogFailure !== failure.message) {
        this.#usageLogFailure = failure.message
        this.#options.logger?.warn(
          { kind: failure.kind, error: failure.message },
          failure.kind === 'denied'
            ? 'RGW usage log not read: its counters are left out'
            : 'RGW usage log not read: its counters keep their last values',
        )
      }
      return { refused: failure.kind === 'denied' }
    }
  }

  #reportOmitted(omitted: number, maxUsers: number): void {
    if (omitted === this.#omittedUsers) return
    this.#omittedUsers = omitted
    if (omitted > 0) {
      this.#options.logger?.warn(
        { omitted, RGW_USERS_MAX: maxUsers },
        'users past RGW_USERS_MAX not measured',
      )
    }
  }

  async close(): Promise<void> {}
}

export { bucketName }

const BUCKET_STATS = 'RGW admin API bucket stats'
const USERS = 'RGW admin API users'
const USAGE_LOG = 'RGW admin API usage log'
export const DEFAULT_USERS_MAX = 1000

type UsageLogRead = { readonly log: RgwUsageLog } | { readonly refused: boolean }

/**
 * A bucket's usage log counters after this scan: carried on from the last ones with what the log
 * holds now; the last ones as they were when the log could not be read; none when it was refused,
 * not asked for, or never had an entry for the bucket.
 */
function usageLogOf(
  read: UsageLogRead | undefined,
  bucket: string,
  previous: UsageLog | undefined,
): UsageLog | undefined {
  if (read === undefined) return undefined
  if (!('log' in read)) return read.refused ? undefined : previous
  const hours = read.log.get(bucket)
  if (!hours) return previous && advanceUsageLog(previous, new Map())
  return advanceUsageLog(previous, hours)
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
