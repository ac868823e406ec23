import type { IncomingHttpHeaders } from 'node:http'
import { request } from 'node:https'
import type { TLSSocket } from 'node:tls'

export interface HttpsAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The server certificate's SHA-256 fingerprint, and its issuer's common name. */
  readonly fingerprint256: string
  readonly issuerCommonName: string
}

export interface HttpsClientOptions {
  /** PEM CA certificate(s) the client trusts (instead of the system store). */
  readonly ca: string
  /** Client certificate and key, for mutual TLS. */
  readonly cert?: string
  readonly key?: string
  readonly headers?: Record<string, string>
}

/**
 * One HTTPS GET on a fresh connection (agent: false): a reused connection would keep showing the
 * certificate of its handshake, and the rotation tests must see what a new client gets.
 */
export function httpsGet(url: string, options: HttpsClientOptions): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        agent: false,
        ca: options.ca,
        ...(options.cert ? { cert: options.cert } : {}),
        ...(options.key ? { key: options.key } : {}),
        headers: options.headers ?? {},
        timeout: 20_000,
      },
      (response) => {
        const peer = response.socket as TLSSocket
        const certificate = peer.getPeerCertificate(true)
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            fingerprint256: certificate.fingerprint256,
            issuerCommonName: String(certificate.issuer?.CN ?? ''),
          }),
        )
      },
    )
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${url} timed out`)))
    outgoing.on('error', reject)
    outgoing.end()
  })
}
