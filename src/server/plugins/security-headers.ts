import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { LANDING_STYLE_HASH } from '../landing-page.js'

/**
 * Headers that keep a browser from doing anything clever with our answers: no scripts, frames
 * or forms (the landing page needs none), no style but the landing page's own inline one (allowed
 * by its hash), no MIME sniffing of the text exposition, no referrer leaking the exporter's
 * address, no framing. Four fixed headers do not need helmet.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `default-src 'none'; style-src '${LANDING_STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

export const securityHeaders = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS)
      return payload
    })
  },
  { name: 'objstore-security-headers', fastify: '5.x' },
)
