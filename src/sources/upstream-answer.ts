import { pipeline, type Readable, Transform } from 'node:stream'

/**
 * Upper bounds on what an upstream answer may hold. A store (or anything answering at its
 * address) decides how much it sends; without a bound a 500 MB listing page fills the heap, and an
 * endless chunked body grows memory until the scan's timeout. Both sources read every answer
 * through one of these, counted as it arrives, and stop reading at the bound.
 */

/** An answer that passed the bound its setting names; the bucket (or the scan) fails with it. */
export class ResponseTooLargeError extends Error {
  /** The message as made here (the SDK appends hints to `message` on its way up). */
  readonly reason: string
  constructor(
    /** The variable that sets the bound (`S3_MAX_RESPONSE_BYTES`...), named in the message. */
    readonly setting: string,
    readonly limit: number,
  ) {
    super(`answer larger than ${setting}=${limit} bytes: not read further`)
    this.name = 'ResponseTooLargeError'
    this.reason = this.message
  }
}

/**
 * `body` as a stream that errors with a ResponseTooLargeError once more than `limit` bytes came
 * through, and destroys `body` then (its connection is closed, nothing more is read). A
 * `declaredLength` (Content-Length) above the limit fails at the first read, without reading.
 */
export function boundedStream(
  body: Readable,
  limit: number,
  setting: string,
  declaredLength?: number,
): Readable {
  let seen = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > limit) done(new ResponseTooLargeError(setting, limit))
      else done(null, chunk)
    },
  })
  if (declaredLength !== undefined && declaredLength > limit) {
    counter.destroy(new ResponseTooLargeError(setting, limit))
    body.destroy()
    return counter
  }
  // pipeline destroys `body` when the counter errors; the error itself reaches the counter's reader.
  pipeline(body, counter, () => {})
  return counter
}

/**
 * Reads a whole body (a fetch answer's, a Node stream) into one buffer, refusing more than
 * `limit` bytes: the reading stops there and the stream is cancelled.
 */
export async function readBounded(
  body: AsyncIterable<Uint8Array> | null,
  limit: number,
  setting: string,
  declaredLength?: number,
): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let length = 0
  if (declaredLength !== undefined && declaredLength > limit) {
    await cancel(body)
    throw new ResponseTooLargeError(setting, limit)
  }
  // Leaving the loop by a throw cancels the stream (its iterator's return()).
  for await (const chunk of body) {
    length += chunk.length
    if (length > limit) throw new ResponseTooLargeError(setting, limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, length)
}

async function cancel(body: AsyncIterable<Uint8Array>): Promise<void> {
  try {
    await body[Symbol.asyncIterator]().return?.()
  } catch {}
}

/** The Content-Length header as a number, undefined when absent or not a plain count. */
export function declaredLength(value: string | string[] | null | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  return text !== undefined && text !== null && /^\d+$/.test(text) ? Number(text) : undefined
}

/**
 * A 3xx answer. Neither source follows redirects: the request carries a signature and maybe a
 * session token (`x-amz-security-token`) meant for the configured endpoint only, and whatever
 * answered at the other address would be taken for the store's figures.
 */
export class RedirectNotFollowedError extends Error {
  readonly reason: string
  constructor(
    readonly status: number,
    location: string | null | undefined,
  ) {
    super(`answered HTTP ${status}, a redirect${whereTo(location)}: redirects are not followed`)
    this.name = 'RedirectNotFollowedError'
    this.reason = this.message
  }
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400
}

/** Only the origin of the target: its path or query may hold a presigned token. */
function whereTo(location: string | null | undefined): string {
  if (!location) return ''
  try {
    return ` to ${new URL(location).origin}`
  } catch {
    return ' to a malformed location'
  }
}
