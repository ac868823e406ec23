// long: client set-up, four pagination loops and error classification; to become a source folder with one paged iterator (issue 12)
import { Readable } from 'node:stream'
import {
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import type { Logger } from 'pino'
import { withoutCredentials } from '../../config/url-credentials.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from '../retry.js'
import { isCount, UsageAccumulator, VersionAccumulator } from '../usage-fold.js'
import {
  type BucketUsage,
  type FailureKind,
  type MultipartUsage,
  type ScanRound,
  SourceError,
  type UsageSource,
} from './types.js'
import {
  boundedStream,
  declaredLength,
  isRedirect,
  RedirectNotFollowedError,
  ResponseTooLargeError,
} from './upstream-answer.js'

export interface S3SourceOptions {
  /** Empty: AWS S3. */
  readonly endpoint: string
  readonly region: string
  readonly forcePathStyle: boolean
  /** Both empty: the SDK's default credential chain. */
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** List versions (ListObjectVersions) instead of current objects only. */
  readonly scanVersions: boolean
  /** S3_MAX_RESPONSE_BYTES: no answer is read past this many bytes. */
  readonly maxResponseBytes?: number
  readonly logger: Logger
  readonly retry?: RetryPolicy
}

/** S3's page size limit; fewer, larger pages are cheaper for store and exporter alike. */
const PAGE_SIZE = 1000

/** S3_MAX_RESPONSE_BYTES's default: a 1,000-key page of 1,024-byte keys is about 1.5 MB. */
export const DEFAULT_S3_MAX_RESPONSE_BYTES = 32 * 1024 * 1024

/**
 * Any S3-compatible endpoint, through the AWS SDK. Each bucket is folded page by page from
 * ListObjectsV2 (or ListObjectVersions with SCAN_VERSIONS), plus ListMultipartUploads. A store
 * that answers NotImplemented to an optional call (s3rver, some gateways) is remembered as not
 * supporting it (NotImplemented, or MethodNotAllowed as s3rver answers for versions): those families are omitted, one info line says so, the rest is still measured.
 */
export function createS3Source(options: S3SourceOptions): UsageSource {
  return new S3UsageSource(options)
}

type Optional = 'ListObjectVersions' | 'ListMultipartUploads'

class S3UsageSource implements UsageSource {
  readonly name = 's3'
  readonly id: string
  readonly #client: S3Client
  readonly #options: S3SourceOptions
  readonly #retry: RetryPolicy
  readonly #unsupported = new Set<Optional>()

  constructor(options: S3SourceOptions) {
    this.#options = options
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY
    // Shown in logs and kept in the state file: never with user info from the URL.
    this.id = `s3:${options.endpoint ? withoutCredentials(options.endpoint) : `aws/${options.region}`}`
    const explicitKeys = options.accessKeyId !== '' && options.secretAccessKey !== ''
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : { followRegionRedirects: true }),
      forcePathStyle: options.forcePathStyle,
      ...(explicitKeys
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Retries are ours (withRetry): per page, with our classification and the scan's abort signal.
      maxAttempts: 1,
      requestHandler: {
        connectionTimeout: 5_000,
        requestTimeout: 120_000,
        throwOnRequestTimeout: true,
        httpAgent: { keepAlive: true, maxSockets: 64 },
        httpsAgent: { keepAlive: true, maxSockets: 64 },
      },
    })
    const limit = options.maxResponseBytes ?? DEFAULT_S3_MAX_RESPONSE_BYTES
    const aws = !options.endpoint
    // Next to the HTTP handler (inside the SDK's deserializer): sees each raw answer before it is read.
    this.#client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args)
        checkAnswer(result.response as RawResponse, limit, aws)
        return result
      },
      { step: 'deserialize', priority: 'low', name: 'objstoreCheckedAnswers' },
    )
  }

  async beginScan({ signal, fixedBuckets }: { signal: AbortSignal; fixedBuckets?: readonly string[] }) {
    const buckets = fixedBuckets ?? (await this.#listBuckets(signal))
    const round: ScanRound = {
      buckets,
      measure: (bucket, bucketSignal) => this.#measure(bucket, bucketSignal),
    }
    return round
  }

  async close(): Promise<void> {
    this.#client.destroy()
  }

  async #listBuckets(signal: AbortSignal): Promise<string[]> {
    const names: string[] = []
    let token: string | undefined
    do {
      const continuation = token
      const page = await this.#send('ListBuckets', signal, (abortSignal) =>
        this.#client.send(new ListBucketsCommand({ MaxBuckets: 10_000, ContinuationToken: continuation }), {
          abortSignal,
        }),
      )
      // An empty account still answers <Buckets/> (and its Owner); neither means no listing at all.
      if (page.Buckets === undefined && page.Owner === undefined) throw notAListing('ListBuckets')
      for (const bucket of page.Buckets ?? []) if (bucket.Name) names.push(bucket.Name)
      token = page.ContinuationToken
      if (token !== undefined && token === continuation) throw stalled('ListBuckets')
    } while (token)
    return names
  }

  async #measure(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    let usage: BucketUsage | undefined
    if (this.#options.scanVersions) {
      usage = await this.#optional('ListObjectVersions', bucket, 'version families omitted', () =>
        this.#foldVersions(bucket, signal),
      )
    }
    usage ??= await this.#foldCurrent(bucket, signal)
    const multipart = await this.#optional('ListMultipartUploads', bucket, 'multipart families omitted', () =>
      this.#countMultipart(bucket, signal),
    )
    return multipart ? { ...usage, multipart } : usage
  }

  /** Runs an optional call unless the store said it does not implement it; undefined when it does not. */
  async #optional<T>(
    operation: Optional,
    bucket: string,
    consequence: string,
    call: () => Promise<T>,
  ): Promise<T | undefined> {
    if (this.#unsupported.has(operation)) return undefined
    try {
      return await call()
    } catch (error) {
      if (!(error instanceof SourceError && error.kind === 'unsupported')) throw error
      if (!this.#unsupported.has(operation)) {
        this.#unsupported.add(operation)
        this.#options.logger.info(
          { operation, bucket },
          `store does not implement ${operation}: ${consequence}`,
        )
      }
      return undefined
    }
  }

  async #foldCurrent(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    const fold = new UsageAccumulator({ storageClasses: true })
    let token: string | undefined
    do {
      const continuation = token
      const page = await this.#send(`ListObjectsV2 ${bucket}`, signal, (abortSignal) =>
        this.#client.send(
          new ListObjectsV2Command({ Bucket: bucket, MaxKeys: PAGE_SIZE, ContinuationToken: continuation }),
          { abortSignal },
        ),
      )
      if (page.IsTruncated === undefined) throw notAListing(`ListObjectsV2 ${bucket}`)
      for (const object of page.Contents ?? []) {
        const size = objectSize(object.Size, `ListObjectsV2 ${bucket}`)
        fold.add(size, object.LastModified?.getTime() ?? Number.NaN, object.StorageClass)
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
      if (page.IsTruncated && (token === undefined || token === continuation))
        throw stalled(`ListObjectsV2 ${bucket}`)
    } while (token)
    return fold.finish()
  }

  /**
   * Versions come sorted by key, so one key's history is contiguous, but it may straddle pages: the
   * page's last key (NextKeyMarker) is carried into the next page before it is counted. Memory is
   * one page's keys at most.
   */
  async #foldVersions(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    const fold = new UsageAccumulator({ storageClasses: true })
    const versions = new VersionAccumulator()
    let keyMarker: string | undefined
    let versionIdMarker: string | undefined
    let carried: KeyHistory | undefined
    for (;;) {
      const [key, versionId] = [keyMarker, versionIdMarker]
      const page = await this.#send(`ListObjectVersions ${bucket}`, signal, (abortSignal) =>
        this.#client.send(
          new ListObjectVersionsCommand({
            Bucket: bucket,
            MaxKeys: PAGE_SIZE,
            KeyMarker: key,
            VersionIdMarker: versionId,
          }),
          { abortSignal },
        ),
      )
      if (page.IsTruncated === undefined) throw notAListing(`ListObjectVersions ${bucket}`)
      const histories = new Map<string, KeyHistory>()
      if (carried) histories.set(carried.key, carried)
      for (const version of page.Versions ?? []) {
        const isLatest = version.IsLatest === true
        const size = objectSize(version.Size, `ListObjectVersions ${bucket}`)
        versions.addVersion({ isLatest, size })
        if (isLatest) fold.add(size, version.LastModified?.getTime() ?? Number.NaN, version.StorageClass)
        noteEntry(histories, version.Key ?? '', version.VersionId)
      }
      for (const marker of page.DeleteMarkers ?? []) {
        versions.addDeleteMarker()
        noteEntry(histories, marker.Key ?? '', marker.VersionId)
      }
      carried = undefined
      if (page.IsTruncated) {
        keyMarker = page.NextKeyMarker
        versionIdMarker = page.NextVersionIdMarker
        if (keyMarker === undefined || (keyMarker === key && versionIdMarker === versionId)) {
          throw stalled(`ListObjectVersions ${bucket}`)
        }
        carried = histories.get(keyMarker)
        histories.delete(keyMarker)
      }
      for (const history of histories.values()) versions.addKey(history.entries, history.onlyNullVersion)
      if (!page.IsTruncated) break
    }
    return { ...fold.finish(), versions: versions.finish() }
  }

  async #countMultipart(bucket: string, signal: AbortSignal): Promise<MultipartUsage> {
    let incomplete = 0
    let oldestMs = Number.POSITIVE_INFINITY
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    for (;;) {
      const [key, uploadId] = [keyMarker, uploadIdMarker]
      const page = await this.#send(`ListMultipartUploads ${bucket}`, signal, (abortSignal) =>
        this.#client.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            MaxUploads: PAGE_SIZE,
            KeyMarker: key,
            UploadIdMarker: uploadId,
          }),
          { abortSignal },
        ),
      )
      if (page.IsTruncated === undefined) throw notAListing(`ListMultipartUploads ${bucket}`)
      for (const upload of page.Uploads ?? []) {
        incomplete++
        const initiated = upload.Initiated?.getTime()
        if (initiated !== undefined && initiated < oldestMs) oldestMs = initiated
      }
      if (!page.IsTruncated) break
      keyMarker = page.NextKeyMarker
      uploadIdMarker = page.NextUploadIdMarker
      if (keyMarker === undefined || (keyMarker === key && uploadIdMarker === uploadId)) {
        throw stalled(`ListMultipartUploads ${bucket}`)
      }
    }
    return Number.isFinite(oldestMs)
      ? { incomplete, oldestInitiatedSeconds: oldestMs / 1000 }
      : { incomplete }
  }

  /** One request, retried with backoff when throttled or unreachable; errors come out classified. */
  #send<T>(action: string, signal: AbortSignal, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return withRetry(
      async () => {
        try {
          return await call(signal)
        } catch (error) {
          throw classifyS3Error(error, action)
        }
      },
      {
        policy: this.#retry,
        signal,
        isRetryable: (error) => error instanceof SourceError && error.retryable,
      },
    )
  }
}

interface RawResponse {
  statusCode: number
  headers: Record<string, string | undefined>
  body: unknown
}

/**
 * Every raw answer, before the SDK reads it: the body is bounded by S3_MAX_RESPONSE_BYTES where
 * the SDK collects it (its stream errors past the bound and the connection is closed), and a 3xx
 * is refused before its body is read. On AWS itself (`aws`), a 301 naming the bucket's region is
 * left to the SDK's region redirect, which signs a new request for that region's endpoint; it
 * never follows a Location.
 */
function checkAnswer(response: RawResponse, limit: number, aws: boolean): void {
  const body = response.body
  if (isRedirect(response.statusCode) && !(aws && response.headers['x-amz-bucket-region'])) {
    if (body instanceof Readable) body.destroy()
    throw new RedirectNotFollowedError(response.statusCode, response.headers.location)
  }
  if (body instanceof Readable) {
    response.body = boundedStream(
      body,
      limit,
      'S3_MAX_RESPONSE_BYTES',
      declaredLength(response.headers['content-length']),
    )
  }
}

interface KeyHistory {
  readonly key: string
  entries: number
  onlyNullVersion: boolean
}

function noteEntry(histories: Map<string, KeyHistory>, key: string, versionId: string | undefined): void {
  const history = histories.get(key)
  if (history) {
    history.entries++
    history.onlyNullVersion = false
  } else {
    histories.set(key, { key, entries: 1, onlyNullVersion: versionId === undefined || versionId === 'null' })
  }
}

/**
 * A 200 answer the SDK parsed without complaint that holds no listing: an HTML error page or an
 * empty body from a proxy comes out as an empty object. Taken as an empty last page it would
 * publish wrong figures (a bucket cut short, every bucket gone) as a successful scan.
 */
function notAListing(action: string): SourceError {
  return new SourceError(`${action}: the answer holds no listing (an HTML page or an empty body?)`, 'failed')
}

/**
 * An object's `<Size>` as the SDK read it (with `Number()`: `abc` is NaN, `1e400` Infinity).
 * Anything but a non-negative safe integer would make the bucket's total NaN or wrong, and
 * would be kept in the state file: the bucket fails instead. An absent Size counts 0, as before.
 */
function objectSize(size: number | undefined, action: string): number {
  if (size === undefined) return 0
  if (!isCount(size)) {
    throw new SourceError(
      `${action}: an object's <Size> is ${String(size)}, not a whole number of bytes from 0 to 2^53-1`,
      'failed',
    )
  }
  return size
}

function stalled(action: string): SourceError {
  return new SourceError(`${action}: the store said the listing continues but gave no new position`, 'failed')
}

const THROTTLING = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'BandwidthLimitExceeded',
])
const UNAVAILABLE = new Set(['InternalError', 'ServiceUnavailable', 'RequestTimeout', 'TimeoutError'])
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
const DENIED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'CredentialsProviderError',
])
const MISSING = new Set(['NoSuchBucket'])

/** Sorts an SDK error into what the scanner does with it (retry or not, how to report it). */
export function classifyS3Error(error: unknown, action: string): SourceError {
  if (error instanceof SourceError) return error
  // Our own refusals are final: the same answer would come again.
  if (error instanceof ResponseTooLargeError || error instanceof RedirectNotFollowedError) {
    return new SourceError(`${action}: ${error.reason}`, 'failed', { cause: error })
  }
  const {
    name = 'Error',
    message = String(error),
    code,
    $metadata,
  } = error as {
    name?: string
    message?: string
    code?: string
    $metadata?: { httpStatusCode?: number }
  }
  const status = $metadata?.httpStatusCode
  let kind: FailureKind = 'failed'
  // 501 NotImplemented is what S3 specifies; some stores (s3rver for ?versions) answer 405
  // MethodNotAllowed to a call they lack. Either way the call is not supported, not failing.
  if (name === 'NotImplemented' || name === 'MethodNotAllowed' || status === 501 || status === 405) {
    kind = 'unsupported'
  } else if (THROTTLING.has(name) || status === 429 || status === 503) kind = 'throttled'
  else if (
    UNAVAILABLE.has(name) ||
    NETWORK_CODES.has(code ?? '') ||
    status === 500 ||
    status === 502 ||
    status === 504
  ) {
    kind = 'unavailable'
  } else if (DENIED.has(name) || status === 401 || status === 403) kind = 'denied'
  else if (MISSING.has(name) || status === 404) kind = 'missing'
  const where = status ? ` (HTTP ${status})` : code ? ` (${code})` : ''
  return new SourceError(`${action}: ${name}${where}: ${message}`, kind, { cause: error })
}
