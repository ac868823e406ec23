import { once } from 'node:events'
import {
  createServer,
  request as forward,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { describeS3Request, type S3Request, s3ErrorXml } from './s3-requests.js'

/**
 * What the gate does with one request:
 * - `'forward'`: pass it on unchanged;
 * - `{ status, code }`: answer with that S3 error document itself;
 * - `'hang'`: accept it and never answer (until the client gives up or the gate closes);
 * - `{ slow }`: forward it, then trickle the answer back in `slow.chunks` pieces `slow.gapMs` apart;
 * - `{ rewrite }`: forward it and answer what `rewrite` makes of the store's status and body
 *   (malformed XML, a listing that says it continues without saying where);
 * - `{ redirect }`: answer that status with a Location header (to another server), no body;
 * - `{ endless }`: answer 200 with `endless` then blank padding forever (chunked), as fast as the
 *   client reads, until it closes the connection; the bytes written are counted in `streamed`.
 */
export type GateVerdict =
  | 'forward'
  | 'hang'
  | { readonly status: number; readonly code: string }
  | { readonly slow: { readonly chunks: number; readonly gapMs: number } }
  | { readonly rewrite: (body: string, status: number) => { status: number; body: string } }
  | { readonly redirect: { readonly status: number; readonly location: string } }
  | { readonly endless: string }

export interface S3Gate {
  /** http://127.0.0.1:PORT, to use as S3_ENDPOINT in place of the store's. */
  readonly endpoint: string
  /** Every request seen, with what was done with it, in arrival order. */
  readonly seen: Array<S3Request & { readonly verdict: string }>
  /** Decides each request; may wait (hold the request) before deciding. Default: forward all. */
  policy: (request: S3Request) => GateVerdict | Promise<GateVerdict>
  /** How many requests of `operation` (on `bucket`, if given) were seen. */
  count(operation: string, bucket?: string): number
  /** Per `endless` answer, in order: the bytes written before the client closed the connection. */
  readonly streamed: number[]
  /** Requests held unanswered right now ('hang'). */
  readonly heldCount: number
  /**
   * Stops listening and drops every connection: connections to the endpoint are refused until
   * reopen() listens again on the same port.
   */
  refuse(): Promise<void>
  reopen(): Promise<void>
  close(): Promise<void>
}

function verdictName(verdict: GateVerdict): string {
  if (typeof verdict === 'string') return verdict
  if ('code' in verdict) return verdict.code
  if ('redirect' in verdict) return `redirect ${verdict.redirect.status}`
  if ('endless' in verdict) return 'endless'
  return 'slow' in verdict ? 'slow' : 'rewrite'
}

/**
 * An HTTP gate in front of a real S3 server: forwards requests unchanged, except those its policy
 * fails (throttling, denial), holds (a scan kept in flight while a test scrapes, an endpoint that
 * never answers), slows down or rewrites. Faults are injected on the wire, so the exporter's real
 * SDK, retries and error handling are what is tested.
 */
export async function startS3Gate(targetPort: number): Promise<S3Gate> {
  const seen: S3Gate['seen'] = []
  const held = new Set<ServerResponse>()
  const streamed: number[] = []
  let port = 0
  const gate: S3Gate = {
    get endpoint() {
      return `http://127.0.0.1:${port}`
    },
    seen,
    streamed,
    policy: () => 'forward',
    count: (operation, bucket) =>
      seen.filter(
        (entry) => entry.operation === operation && (bucket === undefined || entry.bucket === bucket),
      ).length,
    get heldCount() {
      return held.size
    },
    refuse: () => stopListening(),
    async reopen() {
      server.listen(port, '127.0.0.1')
      await once(server, 'listening')
    },
    close: () => stopListening(),
  }
  const stopListening = async () => {
    for (const response of held) response.destroy()
    if (!server.listening) return
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  }
  const server: Server = createServer((incoming, outgoing) => {
    const described = describeS3Request(incoming)
    void Promise.resolve(gate.policy(described)).then((verdict) => {
      seen.push({ ...described, verdict: verdictName(verdict) })
      if (verdict === 'hang') {
        incoming.resume()
        held.add(outgoing)
        outgoing.on('close', () => held.delete(outgoing))
        return
      }
      if (verdict !== 'forward' && 'redirect' in verdict) {
        incoming.resume()
        outgoing.writeHead(verdict.redirect.status, {
          Location: verdict.redirect.location,
          'Content-Length': '0',
        })
        outgoing.end()
        return
      }
      if (verdict !== 'forward' && 'endless' in verdict) {
        incoming.resume()
        held.add(outgoing)
        const index = streamed.push(0) - 1
        void answerEndless(outgoing, verdict.endless, (bytes) => {
          streamed[index] = bytes
        }).finally(() => held.delete(outgoing))
        return
      }
      if (verdict !== 'forward' && 'code' in verdict) {
        incoming.resume()
        outgoing.writeHead(verdict.status, { 'Content-Type': 'application/xml' })
        outgoing.end(s3ErrorXml(verdict.code, `injected by the test gate`, incoming.url ?? '/'))
        return
      }
      const upstream = forward(
        {
          host: '127.0.0.1',
          port: targetPort,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (response) => {
          if (verdict === 'forward') {
            outgoing.writeHead(response.statusCode ?? 502, response.headers)
            response.pipe(outgoing)
            return
          }
          void answerAltered(response, outgoing, verdict).catch(() => outgoing.destroy())
        },
      )
      upstream.on('error', () => outgoing.destroy())
      incoming.pipe(upstream)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
  return gate
}

/** Most bytes one endless answer writes: a client that never stops reading is cut off here. */
const ENDLESS_BOUND = 4 * 1024 ** 3
const PADDING = Buffer.alloc(64 * 1024, ' ')

/** `head`, then padding as fast as the client reads (backpressure respected) until it closes. */
async function answerEndless(outgoing: ServerResponse, head: string, count: (bytes: number) => void) {
  outgoing.writeHead(200, { 'Content-Type': 'application/xml' })
  let bytes = 0
  let chunk = Buffer.from(head, 'utf8')
  while (!outgoing.destroyed && bytes < ENDLESS_BOUND) {
    bytes += chunk.length
    count(bytes)
    if (!outgoing.write(chunk)) await drainedOrClosed(outgoing)
    chunk = PADDING
  }
  outgoing.destroy()
}

function drainedOrClosed(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done)
      outgoing.off('close', done)
      resolve()
    }
    outgoing.on('drain', done)
    outgoing.on('close', done)
  })
}

/** Reads the store's whole answer, then sends it slowly or rewritten. */
async function answerAltered(
  response: IncomingMessage,
  outgoing: ServerResponse,
  verdict: Extract<GateVerdict, { readonly slow: unknown } | { readonly rewrite: unknown }>,
): Promise<void> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  const status = response.statusCode ?? 502
  const headers = { ...response.headers }
  delete headers['content-length']
  delete headers['transfer-encoding']
  if ('rewrite' in verdict) {
    const altered = verdict.rewrite(Buffer.concat(chunks).toString('utf8'), status)
    const body = Buffer.from(altered.body, 'utf8')
    outgoing.writeHead(altered.status, { ...headers, 'content-length': String(body.length) })
    outgoing.end(body)
    return
  }
  const body = Buffer.concat(chunks)
  const { chunks: pieces, gapMs } = verdict.slow
  outgoing.writeHead(status, { ...headers, 'content-length': String(body.length) })
  const size = Math.ceil(body.length / pieces)
  for (let offset = 0; offset < body.length; offset += size) {
    await sleep(gapMs)
    if (outgoing.destroyed) return
    outgoing.write(body.subarray(offset, offset + size))
  }
  outgoing.end()
}
