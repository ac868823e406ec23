import { createRequire } from 'node:module'
import type { Pool } from 'undici'
import { credentialsOf } from '../../../config/url-credentials.js'
import { retryAfterMs } from './backoff.js'

/**
 * undici is loaded when the first poster is built, not when the logging module is: an exporter
 * logging to the console only never needs it, and it is some 10 MB of resident memory.
 */
const loadUndici = () => createRequire(import.meta.url)('undici') as typeof import('undici')

/** What became of one POST: delivered, rejected for good (dropped), or worth retrying. */
export type PostOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'rejected'; readonly problem: string }
  | { readonly kind: 'retry'; readonly problem: string; readonly retryAfterMs?: number }

export interface BatchPosterOptions {
  /** The receiver's URL; user info in it becomes a Basic Authorization header. */
  readonly endpoint: string
  /** Sent as `Authorization: Bearer <token>` when non-empty (wins over user info). */
  readonly authToken?: string
  /** Bound on one POST: connect, headers and body. */
  readonly timeoutMs: number
  readonly userAgent: string
}

const NDJSON_CONTENT_TYPE = 'application/x-ndjson'

/**
 * POSTs NDJSON batches to one receiver over a keep-alive undici pool. The pool is built from the
 * URL's origin alone, so credentials live only in the Authorization header, and nothing here
 * returns or throws the request options: a problem is described by status or error code only.
 */
export class BatchPoster {
  readonly #pool: Pool
  readonly #path: string
  readonly #headers: Readonly<Record<string, string>>
  readonly #timeoutMs: number

  constructor(options: BatchPosterOptions) {
    const url = new URL(options.endpoint)
    this.#path = `${url.pathname}${url.search}`
    this.#timeoutMs = options.timeoutMs
    this.#headers = {
      'content-type': NDJSON_CONTENT_TYPE,
      'user-agent': options.userAgent,
      ...authorizationHeader(url, options.authToken),
    }
    // Batches go one at a time (entries stay in order), so one connection kept alive is enough.
    this.#pool = new (loadUndici().Pool)(url.origin, {
      connections: 1,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs },
    })
  }

  /** Sends one batch; never throws. `signal` aborts it (shutdown deadline). */
  async post(body: string, signal: AbortSignal): Promise<PostOutcome> {
    if (signal.aborted) return { kind: 'retry', problem: 'abandoned at the shutdown deadline' }
    // One controller per request, aborted by the timeout or by `signal`. (AbortSignal.any on a
    // long-lived signal keeps state per call on Node 20; a listener removed in `finally` does not.)
    const request = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      request.abort()
    }, this.#timeoutMs)
    timer.unref()
    const abandon = () => request.abort()
    signal.addEventListener('abort', abandon, { once: true })
    let statusCode: number
    let retryAfter: string | string[] | undefined
    try {
      const response = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: this.#headers,
        body,
        signal: request.signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      })
      statusCode = response.statusCode
      retryAfter = response.headers['retry-after']
      // Read the answer to the end so the connection can carry the next batch; its content is not used.
      await response.body.dump().catch(() => {})
    } catch (error) {
      if (timedOut) return { kind: 'retry', problem: `no answer within ${this.#timeoutMs} ms` }
      if (signal.aborted) return { kind: 'retry', problem: 'abandoned at the shutdown deadline' }
      return { kind: 'retry', problem: describeError(error) }
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', abandon)
    }
    return classify(statusCode, retryAfter)
  }

  /** Closes the connections: gracefully, or at once when `force` (the deadline has passed). */
  async close(force = false): Promise<void> {
    if (this.#pool.destroyed) return
    await (force || this.#pool.closed ? this.#pool.destroy() : this.#pool.close())
  }
}

/**
 * 2xx delivers; 429, 408 and 5xx are the receiver's passing trouble and are retried; any other
 * status (other 4xx, an unfollowed redirect) will not change on retry, so the batch is dropped.
 */
export function classify(statusCode: number, retryAfter?: string | string[]): PostOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered' }
  const problem = `HTTP ${statusCode}`
  if (statusCode === 429 || statusCode === 408 || statusCode >= 500) {
    const delay = retryAfterMs(retryAfter)
    return delay === undefined ? { kind: 'retry', problem } : { kind: 'retry', problem, retryAfterMs: delay }
  }
  return { kind: 'rejected', problem }
}

function authorizationHeader(url: URL, token: string | undefined): Record<string, string> {
  if (token) return { authorization: `Bearer ${token}` }
  const { username, password } = credentialsOf(url.href)
  if (username === '' && password === '') return {}
  const userInfo = `${username}:${password}`
  return { authorization: `Basic ${Buffer.from(userInfo).toString('base64')}` }
}

/** An error code and short reason, never the error object (it may hold the request). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed'
  const code = (error as { code?: unknown }).code
  const codeText = typeof code === 'string' ? code : error.name
  return error.message && !error.message.includes(codeText) ? `${codeText}: ${error.message}` : codeText
}
