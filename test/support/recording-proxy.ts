import { once } from 'node:events'
import { createServer, request } from 'node:http'
import { type ParsedExposition, parseExposition } from './exposition.js'

/**
 * A pass-through HTTP proxy on loopback that keeps every request line and every scrape body it
 * relays, in order: a test can compare what Prometheus stored with exactly what the exporter
 * served, or see what the exporter asked of an upstream. It asks for uncompressed bodies (drops
 * Accept-Encoding) and changes nothing else.
 */
export interface RecordingProxy {
  /** host:port for a Prometheus target. */
  readonly target: string
  /** Every relayed answer with status 200 and an exposition's content type, parsed, oldest first. */
  readonly scrapes: ParsedExposition[]
  /** Every request relayed, as `METHOD /path?query`, oldest first. */
  readonly requests: string[]
  close(): Promise<void>
}

export interface RecordingProxyOptions {
  /**
   * Forward the client's Host header as it came (the proxy's address), so a SigV4-signed request,
   * which signs it, stays valid; by default the upstream's host is sent.
   */
  readonly keepHost?: boolean
}

const EXPOSITION_TYPE = /^(text\/plain|application\/openmetrics-text)/

export async function startRecordingProxy(
  upstream: string,
  options: RecordingProxyOptions = {},
): Promise<RecordingProxy> {
  const scrapes: ParsedExposition[] = []
  const requests: string[] = []
  const upstreamUrl = new URL(upstream)
  const server = createServer((incoming, outgoing) => {
    requests.push(`${incoming.method} ${incoming.url}`)
    const headers = { ...incoming.headers, ...(options.keepHost ? {} : { host: upstreamUrl.host }) }
    delete headers['accept-encoding']
    const forward = request(
      {
        host: upstreamUrl.hostname,
        port: upstreamUrl.port,
        path: incoming.url,
        method: incoming.method,
        headers,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const body = Buffer.concat(chunks)
          // Recorded before Prometheus gets the body, so every stored sample has its scrape here.
          if (response.statusCode === 200 && EXPOSITION_TYPE.test(response.headers['content-type'] ?? ''))
            scrapes.push(parseExposition(body.toString('utf8')))
          outgoing.writeHead(response.statusCode ?? 502, response.headers)
          outgoing.end(body)
        })
      },
    )
    forward.on('error', (error) => {
      outgoing.writeHead(502)
      outgoing.end(String(error))
    })
    incoming.pipe(forward)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('proxy did not bind a TCP port')
  return {
    target: `127.0.0.1:${address.port}`,
    scrapes,
    requests,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
