import { request } from 'undici'

/** How long a request to SNS may take, headers and body; and the most of its answer read. */
const TIMEOUT_MS = 5000

/** An SNS answer, read up to `maxBytes` (a longer one is refused). */
export interface SnsAnswer {
  readonly status: number
  readonly body: string
}

/**
 * GETs `url` (checked by isSnsUrl beforehand) with a time and size bound, no redirect followed,
 * through undici's global dispatcher (TLS verified against the system's authorities).
 */
export async function getFromSns(url: string, maxBytes: number): Promise<SnsAnswer> {
  const signal = AbortSignal.timeout(TIMEOUT_MS)
  const answer = await request(url, {
    method: 'GET',
    signal,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  })
  const length = Number(answer.headers['content-length'])
  if (Number.isFinite(length) && length > maxBytes) {
    answer.body.destroy()
    throw new Error(`answer of ${length} bytes, over ${maxBytes}`)
  }
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > maxBytes) {
      answer.body.destroy()
      throw new Error(`answer over ${maxBytes} bytes`)
    }
    chunks.push(chunk)
  }
  return { status: answer.statusCode, body: Buffer.concat(chunks).toString('utf8') }
}
