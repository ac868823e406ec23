import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { RequestAuthenticator } from '../../security/access.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without credentials: liveness and readiness probes, which carry no data. */
    public?: boolean
  }
}

const REQUIRED = { bearer: 'a bearer token is required', basic: 'a user name and password are required' }

export interface AuthenticationOptions {
  readonly authenticator: RequestAuthenticator
}

/**
 * Requires credentials (a bearer token, or basic auth from the web configuration file) on every
 * route not marked `config: { public: true }`, unknown paths included (so probing for paths learns
 * nothing). Nothing is logged per refusal: Prometheus shows a refused scrape as `up 0`, and a log
 * line per request would let anyone flood the logs.
 */
export const authentication = fp<AuthenticationOptions>(
  async (app: FastifyInstance, { authenticator }) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public === true) return
      const verdict = await authenticator.check(request.headers.authorization)
      if (verdict === 'allowed') return
      if (verdict === 'busy')
        return reply.code(503).header('Retry-After', '1').send({
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'too many passwords being checked',
        })
      return reply
        .code(401)
        .header('WWW-Authenticate', authenticator.challenge)
        .send({ statusCode: 401, error: 'Unauthorized', message: REQUIRED[authenticator.scheme] })
    })
  },
  { name: 'objstore-authentication', fastify: '5.x' },
)
