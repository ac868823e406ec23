import { Readable } from 'node:stream'
import { S3Client } from '@aws-sdk/client-s3'
import type { RequestCounter } from '../request-counter.js'
import { type RetryPolicy, withRetry } from '../retry.js'
import { SourceError } from '../types.js'
import { boundedStream, declaredLength, isRedirect, RedirectNotFollowedError } from '../upstream-answer.js'
import { readCaFile, trustWith } from './ca-file.js'
import { classifyS3Error } from './errors.js'

/**
 * The S3 client as the s3 source uses it: every raw answer checked before the SDK reads it
 * (bounded size, no redirects), our retries instead of the SDK's, errors classified.
 */

export interface S3ClientOptions {
  /** Empty: AWS S3. */
  readonly endpoint: string
  readonly region: string
  readonly forcePathStyle: boolean
  /** Both empty: the SDK's default credential chain. */
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** S3_MAX_RESPONSE_BYTES: no answer is read past this many bytes. */
  readonly maxResponseBytes?: number
  /** The variable that sets maxResponseBytes, named when an answer passes it (S3_MAX_RESPONSE_BYTES). */
  readonly maxResponseSetting?: string
  /** S3_CA_FILE: trusted besides the system's CAs; empty or absent for the defaults. */
  readonly caFile?: string
  /** Counts every request the client sends, by operation, and the failed ones. */
  readonly counter?: RequestCounter
}

/** S3_MAX_RESPONSE_BYTES's default: a 1,000-key page of 1,024-byte keys is about 1.5 MB. */
const DEFAULT_S3_MAX_RESPONSE_BYTES = 32 * 1024 * 1024

export function createCheckedClient(options: S3ClientOptions): S3Client {
  const explicitKeys = options.accessKeyId !== '' && options.secretAccessKey !== ''
  const client = new S3Client({
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
      httpsAgent: {
        keepAlive: true,
        maxSockets: 64,
        ...(options.caFile ? { ca: trustWith(readCaFile(options.caFile)) } : {}),
      },
    },
  })
  const limit = options.maxResponseBytes ?? DEFAULT_S3_MAX_RESPONSE_BYTES
  const setting = options.maxResponseSetting ?? 'S3_MAX_RESPONSE_BYTES'
  const aws = !options.endpoint
  // Next to the HTTP handler (inside the SDK's deserializer): sees each raw answer before it is read.
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args)
      checkAnswer(result.response as RawResponse, limit, setting, aws)
      return result
    },
    { step: 'deserialize', priority: 'low', name: 'objstoreCheckedAnswers' },
  )
  const counter = options.counter
  // Around the SDK's deserializer, inside its redirect handling: each HTTP request passes here
  // once (retries are ours: each is another send), and every failure comes out here, whether the
  // store answered an error, the connection failed, or an answer was refused or did not parse.
  if (counter) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = operationOf(context.commandName)
        counter.sent(operation)
        try {
          return await next(args)
        } catch (error) {
          counter.failed(operation)
          throw error
        }
      },
      { step: 'deserialize', priority: 'high', name: 'objstoreRequestCounts' },
    )
  }
  return client
}

/** The S3 operation of an SDK command: its class name without `Command` (`ListObjectsV2`). */
function operationOf(commandName: string | undefined): string {
  return (commandName ?? 'Unknown').replace(/Command$/, '')
}

/** Sends one request of `action` to the store, as sendClassified does (retried, its errors classified). */
export type SendRequest = <T>(
  action: string,
  signal: AbortSignal,
  call: (abortSignal: AbortSignal) => Promise<T>,
) => Promise<T>

/** One request, retried with backoff when throttled or unreachable; errors come out classified. */
export function sendClassified<T>(
  action: string,
  signal: AbortSignal,
  policy: RetryPolicy,
  call: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withRetry(
    async () => {
      try {
        return await call(signal)
      } catch (error) {
        throw classifyS3Error(error, action)
      }
    },
    {
      policy,
      signal,
      isRetryable: (error) => error instanceof SourceError && error.retryable,
    },
  )
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
function checkAnswer(response: RawResponse, limit: number, setting: string, aws: boolean): void {
  const body = response.body
  if (isRedirect(response.statusCode) && !(aws && response.headers['x-amz-bucket-region'])) {
    if (body instanceof Readable) body.destroy()
    throw new RedirectNotFollowedError(response.statusCode, response.headers.location)
  }
  if (body instanceof Readable) {
    response.body = boundedStream(body, limit, setting, declaredLength(response.headers['content-length']))
  }
}
