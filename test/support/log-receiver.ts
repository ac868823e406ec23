import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LoggerBundle } from '../../src/logging/create-logger.js'
import type { DeliveryStats } from '../../src/logging/targets/types.js'

/** The HTTP target's counters, as the logger collector reads them; undefined when it is off. */
export function httpStats(logging: Pick<LoggerBundle, 'deliveries'>): DeliveryStats | undefined {
  return logging.deliveries.find((delivery) => delivery.target === 'http')?.stats()
}

/** One POST as the receiver saw it. */
export interface ReceivedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The client's port: the same for requests carried by one kept-alive connection. */
  readonly remotePort: number | undefined
  /** The status answered; undefined while the request is held unanswered. */
  status: number | undefined
}

/**
 * What to answer the nth request (0-based): a status (and headers), after `delayMs` if given (an
 * answer the client may no longer wait for), or hold it unanswered.
 */
export type Answer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly delayMs?: number }
  | 'hang'

/**
 * A real HTTP log receiver on 127.0.0.1: records every request with its headers and body and
 * answers as the test says (200 by default; a status sequence; or never).
 */
export class LogReceiver {
  readonly requests: ReceivedRequest[] = []
  answer: (index: number) => Answer
  readonly #server: Server
  readonly #held = new Set<ServerResponse>()

  private constructor(server: Server, answer: (index: number) => Answer) {
    this.#server = server
    this.answer = answer
  }

  static async start(
    options: { port?: number; answer?: (index: number) => Answer } = {},
  ): Promise<LogReceiver> {
    const server = createServer()
    const receiver = new LogReceiver(server, options.answer ?? (() => ({ status: 200 })))
    server.on('request', (request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const received: ReceivedRequest = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          remotePort: request.socket.remotePort,
          status: undefined,
        }
        const answer = receiver.answer(receiver.requests.length)
        receiver.requests.push(received)
        if (answer === 'hang') {
          receiver.#held.add(response)
          response.on('close', () => receiver.#held.delete(response))
          return
        }
        const send = () => {
          receiver.#held.delete(response)
          // A client that gave up did not get the answer: the entries were not delivered.
          if (response.destroyed || request.socket.destroyed) return
          received.status = answer.status
          response.writeHead(answer.status, answer.headers ?? {}).end()
        }
        if (!answer.delayMs) return send()
        receiver.#held.add(response)
        setTimeout(send, answer.delayMs)
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
    })
    return receiver
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/ingest`
  }

  /** Requests held unanswered right now. */
  get heldCount(): number {
    return this.#held.size
  }

  /** Every entry of every request answered 2xx, parsed from NDJSON, in arrival order. */
  acceptedEntries(): Record<string, unknown>[] {
    return this.requests
      .filter((request) => request.status !== undefined && request.status >= 200 && request.status < 300)
      .flatMap((request) => parseNdjson(request.body))
  }

  async close(): Promise<void> {
    for (const response of this.#held) response.destroy()
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}

export function parseNdjson(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}
