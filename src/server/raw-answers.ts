import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { SECURITY_HEADER_LINES } from './plugins/security-headers.js'

/** Every route serves GET (and HEAD); any other method on a known path is a 405. */
export const ALLOWED_METHODS = 'GET, HEAD'

/**
 * Answers written straight to the socket, for requests that never reach a route: what Node's
 * parser refuses, timeouts, CONNECT. Each carries the security headers and closes the connection.
 */
function writeAndClose(socket: Duplex, status: number, extraHeaders: string, body: string): void {
  // Written and destroyed at once, as Node's own handler does: a small answer goes straight into
  // the socket buffer, and waiting for it to flush would let a client that never reads (or a TLS
  // client that never finished its handshake, whose bytes would never leave) keep the socket.
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${extraHeaders}${SECURITY_HEADER_LINES}` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  socket.destroy()
}

/**
 * Fastify's `clientErrorHandler`: the parser refused a request (400, or 431 for oversized
 * headers) or a client was too slow to send one (408, HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS).
 * Nothing is logged: anyone could flood the logs with these.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  writeAndClose(
    socket,
    status,
    '',
    JSON.stringify({ statusCode: status, error: STATUS_CODES[status], message: 'bad or incomplete request' }),
  )
}

/**
 * Node hands CONNECT requests to a 'connect' listener and, with none, drops the socket without a
 * word. We are no proxy: answer 405 and close.
 */
export function refuseConnect(_request: unknown, socket: Duplex): void {
  socket.on('error', () => socket.destroy())
  writeAndClose(
    socket,
    405,
    `Allow: ${ALLOWED_METHODS}\r\n`,
    JSON.stringify({ statusCode: 405, error: 'Method Not Allowed', message: `allowed: ${ALLOWED_METHODS}` }),
  )
}
