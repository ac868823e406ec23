import { once } from 'node:events'
import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describeS3Request, type S3Request, s3ErrorXml } from './s3-requests.js'

/** What the gate does with one request: pass it on, or answer with an S3 error itself. */
export type GateVerdict = 'forward' | { readonly status: number; readonly code: string }

export interface S3Gate {
  /** http://127.0.0.1:PORT, to use as S3_ENDPOINT in place of the store's. */
  readonly endpoint: string
  /** Every request seen, with what was done with it, in arrival order. */
  readonly seen: Array<S3Request & { readonly verdict: string }>
  /** Decides each request; may wait (hold the request) before deciding. Default: forward all. */
  policy: (request: S3Request) => GateVerdict | Promise<GateVerdict>
  /** How many requests of `operation` (on `bucket`, if given) were seen. */
  count(operation: string, bucket?: string): number
  close(): Promise<void>
}

/**
 * An HTTP gate in front of a real S3 server: forwards requests unchanged, except those its policy
 * fails (throttling, denial) or holds (a scan kept in flight while a test scrapes). Faults are
 * injected on the wire, so the exporter's real SDK, retries and error handling are what is tested.
 */
export async function startS3Gate(targetPort: number): Promise<S3Gate> {
  const seen: S3Gate['seen'] = []
  let port = 0
  const gate: S3Gate = {
    get endpoint() {
      return `http://127.0.0.1:${port}`
    },
    seen,
    policy: () => 'forward',
    count: (operation, bucket) =>
      seen.filter(
        (entry) => entry.operation === operation && (bucket === undefined || entry.bucket === bucket),
      ).length,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
  const server: Server = createServer((incoming, outgoing) => {
    const described = describeS3Request(incoming)
    void Promise.resolve(gate.policy(described)).then((verdict) => {
      seen.push({ ...described, verdict: verdict === 'forward' ? 'forward' : verdict.code })
      if (verdict !== 'forward') {
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
          outgoing.writeHead(response.statusCode ?? 502, response.headers)
          response.pipe(outgoing)
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
