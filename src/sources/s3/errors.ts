import { isCount } from '../../record/bucket-usage.js'
import { type FailureKind, SourceError } from '../types.js'
import { RedirectNotFollowedError, ResponseTooLargeError } from '../upstream-answer.js'
import { s3Hint } from './hints.js'

/**
 * A 200 answer the SDK parsed without complaint that holds no listing: an HTML error page or an
 * empty body from a proxy comes out as an empty object. Taken as an empty last page it would
 * publish wrong figures (a bucket cut short, every bucket gone) as a successful scan.
 */
export function notAListing(action: string): SourceError {
  return new SourceError(`${action}: the answer holds no listing (an HTML page or an empty body?)`, 'failed')
}

/**
 * An object's `<Size>` as the SDK read it (with `Number()`: `abc` is NaN, `1e400` Infinity).
 * Anything but a non-negative safe integer would make the bucket's total NaN or wrong, and
 * would be kept in the state file: the bucket fails instead. An absent Size counts 0, as before.
 */
export function objectSize(size: number | undefined, action: string): number {
  if (size === undefined) return 0
  if (!isCount(size)) {
    throw new SourceError(
      `${action}: an object's <Size> is ${String(size)}, not a whole number of bytes from 0 to 2^53-1`,
      'failed',
    )
  }
  return size
}

export function stalled(action: string): SourceError {
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
    hostname,
    $metadata,
  } = error as {
    name?: string
    message?: string
    code?: string
    hostname?: string
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
  const hint = s3Hint({ name, message, action, ...(code ? { code } : {}), ...(hostname ? { hostname } : {}) })
  // OpenSSL's messages end in a newline and name its source file: one line, the reason kept.
  const text = message.trim().replace(/:\.\.\/deps\/openssl\S*$/, '')
  return new SourceError(`${action}: ${name}${where}: ${text}${hint ? ` (hint: ${hint})` : ''}`, kind, {
    cause: error,
  })
}
