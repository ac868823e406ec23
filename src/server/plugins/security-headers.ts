import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { LANDING_STYLE_HASH } from '../landing-page.js'

/**
 * Headers that keep a browser from doing anything clever with our answers: no scripts or frames
 * (the landing page needs none), forms sent only to this origin (the landing page's bucket filter,
 * a GET to /), no style but the landing page's own inline one (allowed by its hash), no MIME sniffing of the text exposition, no referrer leaking the exporter's
 * address, no framing. And no cache may keep any answer: each is live state, and the scrape and
 * landing page are an inventory of the store. Five fixed headers do not need helmet.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `default-src 'none'; style-src '${LANDING_STYLE_HASH}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
}

/** The same headers as raw `Name: value\r\n` lines, for answers written straight to a socket. */
export const SECURITY_HEADER_LINES = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('')

/**
 * Sets the headers on the raw response of every request before Fastify sees it, so answers
 * Fastify writes without running hooks (the 503 while closing) carry them too. Answers Node
 * writes to the socket itself (400, 408, 431; CONNECT) add SECURITY_HEADER_LINES.
 */
export const securityHeaders = fp(
  async (app: FastifyInstance) => {
    app.server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value)
    })
  },
  { name: 'objstore-security-headers', fastify: '5.x' },
)
