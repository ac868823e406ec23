/**
 * A client for the Ceph RADOS Gateway admin API's bucket statistics:
 * `GET /admin/bucket?stats=true&format=json`, SigV4-signed (service `s3`) with the same access key
 * as the S3 API. The key's user needs the admin cap `buckets=read`.
 *
 * One request answers for every bucket of the cluster (all owners): RGW reads the per-bucket
 * counters its bucket index keeps up to date on every write, so it costs a few index reads per
 * bucket instead of a listing of every object. The call takes no `max-entries`/`marker` in any
 * release (only `uid`, `bucket` and `stats`; Ceph 16 "pacific" included), so there is no
 * pagination to follow: RGW streams the whole array in one response.
 *
 * What the counters mean differs from a listing (see docs/sources.md, "rgw"): `rgw.main` counts every
 * object version (noncurrent ones too, delete markers not) and the uploaded parts of incomplete
 * multipart uploads; `rgw.multimeta` holds one entry per incomplete multipart upload. The answer's
 * parser is stats.ts.
 */
import { Sha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'
import type { UserUsage } from '../../record/user-usage.js'
import type { RequestCounter } from '../request-counter.js'
import { declaredLength, isRedirect, RedirectNotFollowedError, readBounded } from '../upstream-answer.js'
import {
  isObject,
  parseBucketStats,
  parseBucketStatsEntries,
  parseBucketStatsList,
  RgwAdminResponseError,
  type RgwBucketStats,
  type RgwStatsEntry,
} from './stats.js'
import { parseUsageLog, type RgwUsageLog } from './usage-log.js'
import { parseUserInfo, parseUserPage, type RgwUserPage } from './users.js'

/** An error answer of the admin API, with RGW's error code (`AccessDenied`, `NoSuchBucket`...). */
export class RgwAdminHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** Why this answer is likely, when the caller knows better than the status alone. */
    explanation = hint(status, code),
    /** The admin cap the request needed (`buckets=read`, `users=read`, `usage=read`). */
    readonly cap = 'buckets=read',
  ) {
    super(
      `RGW admin API answered ${status}${code ? ` ${code}` : ''}${explanation ? ` (${explanation})` : ''}`,
    )
    this.name = 'RgwAdminHttpError'
  }

  /** Throttling and server-side failures may pass; refused credentials or caps will not. */
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500
  }
}

function hint(status: number, code: string, cap = 'buckets=read'): string {
  if (status === 403 && code === 'AccessDenied') {
    return `the user needs the admin cap ${cap}: radosgw-admin caps add --uid=USER --caps="${cap}"`
  }
  if (status === 403) return 'check the access key and secret'
  if (status === 404 && code !== 'NoSuchBucket' && code !== 'NoSuchUser') return NOT_ADMIN_API
  return ''
}

const NOT_ADMIN_API =
  'no RGW admin API there: is this a Ceph RGW endpoint, and is RGW_ADMIN_PATH its rgw admin entry?'

type SignerInit = ConstructorParameters<typeof SignatureV4>[0]

export interface RgwAdminClientOptions {
  /** The RGW endpoint, as for S3 (`http://rgw.example:7480`); a path prefix is kept. */
  readonly endpoint: string
  /** Signing region; RGW accepts any. */
  readonly region: string
  /** Static keys or a provider (the AWS SDK's default chain, for instance). */
  readonly credentials: SignerInit['credentials']
  /** RGW's `rgw admin entry` (default `admin`). */
  readonly adminPath?: string
  /** Bound on one request, headers and body (default 60 s). */
  readonly timeoutMs?: number
  /** RGW_MAX_RESPONSE_BYTES: no answer is read past this many bytes. */
  readonly maxResponseBytes?: number
  /** Counts every request, by operation (`BucketStats`), and the failed ones. */
  readonly counter?: RequestCounter
}

/**
 * RGW_MAX_RESPONSE_BYTES's default. The stats of 10,000 buckets are about 8.5 MB (some 850 bytes
 * a bucket), so this holds some 150,000 buckets, twice the largest clusters seen.
 */
const DEFAULT_RGW_MAX_RESPONSE_BYTES = 128 * 1024 * 1024

/** RFC 3986 escaping, as SigV4 canonicalises query strings. */
function escapeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

export class RgwAdminClient {
  readonly #base: URL
  readonly #adminPath: string
  readonly #signer: SignatureV4
  readonly #timeoutMs: number
  readonly #maxResponseBytes: number
  readonly #counter: RequestCounter | undefined

  constructor(options: RgwAdminClientOptions) {
    this.#counter = options.counter
    this.#base = new URL(options.endpoint)
    const prefix = this.#base.pathname.replace(/\/+$/, '')
    this.#adminPath = `${prefix}/${(options.adminPath ?? 'admin').replace(/^\/+|\/+$/g, '')}`
    this.#signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: options.credentials,
      sha256: Sha256,
    })
    this.#timeoutMs = options.timeoutMs ?? 60_000
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_RGW_MAX_RESPONSE_BYTES
  }

  /** Usage of every bucket of the cluster, one request; any bucket's figures refused fail it all. */
  async listBucketStats(signal?: AbortSignal): Promise<RgwBucketStats[]> {
    return parseBucketStatsList(await this.#getAllStats(signal))
  }

  /** Usage of every bucket of the cluster, one request; a bucket whose figures are refused says why. */
  async listBucketStatsEntries(signal?: AbortSignal): Promise<RgwStatsEntry[]> {
    return parseBucketStatsEntries(await this.#getAllStats(signal))
  }

  async #getAllStats(signal: AbortSignal | undefined): Promise<unknown> {
    try {
      return await this.#get('BucketStats', 'bucket', { stats: 'true', format: 'json' }, signal)
    } catch (error) {
      // Without a bucket parameter a 404 cannot mean a missing bucket: RGW took the path for an
      // S3 request (GET /<bucket>/<key>), so the admin API is not where we asked.
      if (error instanceof RgwAdminHttpError && error.status === 404) {
        throw new RgwAdminHttpError(error.status, error.code, NOT_ADMIN_API)
      }
      throw error
    }
  }

  /** Usage of one bucket (`NoSuchBucket` as an RgwAdminHttpError 404 when it is gone). */
  async bucketStats(bucket: string, signal?: AbortSignal): Promise<RgwBucketStats> {
    return parseBucketStats(
      await this.#get('BucketStats', 'bucket', { bucket, stats: 'true', format: 'json' }, signal),
    )
  }

  /** One page of the user ids (`tenant$uid` in a tenant), in RGW's order; cap `users=read`. */
  async listUsers(
    page: { readonly marker?: string; readonly maxEntries: number },
    signal?: AbortSignal,
  ): Promise<RgwUserPage> {
    const query: Record<string, string> = { list: '', 'max-entries': String(page.maxEntries), format: 'json' }
    if (page.marker !== undefined) query.marker = page.marker
    return parseUserPage(await this.#get('ListUsers', 'user', query, signal, 'users=read'))
  }

  /** A user's stats and quota (`NoSuchUser` as a 404 when gone); cap `users=read`. Keys are never kept. */
  async userInfo(id: string, signal?: AbortSignal): Promise<UserUsage> {
    return parseUserInfo(
      await this.#get('UserInfo', 'user', { uid: id, stats: 'true', format: 'json' }, signal, 'users=read'),
      id,
    )
  }

  /**
   * The usage log's entries (hour, owner, bucket, category), those of hours from `start` (epoch
   * seconds) on when given, else all; cap `usage=read`. RGW reads `start` as a UTC date and time.
   */
  async usageLog(signal?: AbortSignal, start?: number): Promise<RgwUsageLog> {
    const query: Record<string, string> = { 'show-entries': 'true', 'show-summary': 'false', format: 'json' }
    if (start !== undefined) query.start = new Date(start * 1000).toISOString().replace('T', ' ').slice(0, 19)
    return parseUsageLog(await this.#get('Usage', 'usage', query, signal, 'usage=read'))
  }

  /** One request of `operation`, counted: sent, and failed whatever the failure. */
  async #get(
    operation: string,
    resource: string,
    query: Record<string, string>,
    signal: AbortSignal | undefined,
    cap = 'buckets=read',
  ): Promise<unknown> {
    this.#counter?.sent(operation)
    try {
      return await this.#request(resource, query, signal, cap)
    } catch (error) {
      this.#counter?.failed(operation)
      throw error
    }
  }

  async #request(
    resource: string,
    query: Record<string, string>,
    signal: AbortSignal | undefined,
    cap = 'buckets=read',
  ): Promise<unknown> {
    const path = `${this.#adminPath}/${resource}`
    const port = this.#base.port ? Number(this.#base.port) : undefined
    const signed = await this.#signer.sign({
      method: 'GET',
      protocol: this.#base.protocol,
      hostname: this.#base.hostname,
      ...(port === undefined ? {} : { port }),
      path,
      query,
      // fetch sends exactly URL.host (the port only when not the scheme's default).
      headers: { host: this.#base.host },
    })
    const search = Object.keys(query)
      .sort()
      .map((key) => `${escapeRfc3986(key)}=${escapeRfc3986(query[key] as string)}`)
      .join('&')
    const url = `${this.#base.origin}${path}?${search}`
    const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== 'host'))
    const timeout = AbortSignal.timeout(this.#timeoutMs)
    const response = await fetch(url, {
      headers,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      // A redirect is an answer, never followed: the signed request (and a session token) is for
      // this endpoint only, and another host's answer is not this cluster's stats.
      redirect: 'manual',
    })
    if (isRedirect(response.status)) {
      await response.body?.cancel()
      throw new RedirectNotFollowedError(response.status, response.headers.get('location'))
    }
    const text = (
      await readBounded(
        response.body,
        this.#maxResponseBytes,
        'RGW_MAX_RESPONSE_BYTES',
        declaredLength(response.headers.get('content-length')),
      )
    ).toString('utf8')
    if (response.status !== 200) {
      const code = errorCode(text)
      throw new RgwAdminHttpError(response.status, code, hint(response.status, code, cap), cap)
    }
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw new RgwAdminResponseError(
        `RGW admin API answered 200 with a body that is not JSON (${text.length} bytes)`,
      )
    }
  }
}

/** RGW answers errors as JSON (`{"Code":"AccessDenied",...}`) with format=json, XML otherwise. */
function errorCode(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown
    if (isObject(parsed) && typeof parsed.Code === 'string') return parsed.Code
  } catch {}
  return /<Code>([^<]*)<\/Code>/.exec(body)?.[1] ?? ''
}
