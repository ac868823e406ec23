import { once } from 'node:events'
import { createServer, request } from 'node:http'
import { type ParsedExposition, parseExposition } from './exposition.js'

/**
 * A pass-through HTTP proxy on loopback that keeps every scrape body it relays, in order, so a
 * test can compare what Prometheus stored with exactly what the exporter served. It asks the
 * exporter for an uncompressed body (drops Accept-Encoding) and changes nothing else.
 */
export interface RecordingProxy {
  /** host:port for a Prometheus target. */
  readonly target: string
  /** Every relayed scrape with status 200, parsed, oldest first. */
  readonly scrapes: ParsedExposition[]
  close(): Promise<void>
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const scrapes: ParsedExposition[] = []
  const upstreamUrl = new URL(upstream)
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, host: upstreamUrl.host }
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
          if (response.statusCode === 200) scrapes.push(parseExposition(body.toString('utf8')))
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
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
