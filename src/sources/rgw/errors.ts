import { classifyS3Error } from '../s3/errors.js'
import { SourceError } from '../types.js'
import { RedirectNotFollowedError, ResponseTooLargeError } from '../upstream-answer.js'
import { RgwAdminHttpError } from './admin.js'
import { RgwAdminResponseError } from './stats.js'

/** Admin API failures sorted as the S3 source sorts SDK errors (retry or not, how to report). */
export function classifyRgwError(error: unknown, action = 'RGW admin API bucket stats'): SourceError {
  if (error instanceof RgwAdminHttpError) {
    // A 404 here is not a missing bucket (none was named): there is no admin API at that path.
    const kind =
      error.status === 404
        ? 'failed'
        : classifyS3Error(
            { name: error.code || 'Error', $metadata: { httpStatusCode: error.status } },
            action,
          ).kind
    return new SourceError(`${action}: ${error.message}`, kind, { cause: error })
  }
  if (error instanceof ResponseTooLargeError || error instanceof RedirectNotFollowedError) {
    return new SourceError(`${action}: ${error.reason}`, 'failed', { cause: error })
  }
  if (error instanceof RgwAdminResponseError) {
    return new SourceError(`${action}: ${error.message}`, 'failed', { cause: error })
  }
  const {
    name = 'Error',
    message = String(error),
    cause,
  } = error as {
    name?: string
    message?: string
    cause?: { code?: string }
  }
  if (name === 'TimeoutError') return new SourceError(`${action}: timed out`, 'unavailable', { cause: error })
  // fetch's network failures: a TypeError whose cause carries the socket error code.
  return classifyS3Error({ name, message, code: cause?.code }, action)
}
