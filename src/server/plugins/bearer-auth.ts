import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type BearerToken, bearerCredentials } from '../../security/bearer-token.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without a bearer token: liveness and readiness probes, which carry no data. */
    public?: boolean
  }
}

export const AUTH_CHALLENGE = 'Bearer realm="objstore-exporter"'

export interface BearerAuthOptions {
  readonly token: BearerToken
}

/**
 * Requires `Authorization: Bearer <token>` on every route not marked `config: { public: true }`,
 * unknown paths included (so probing for paths learns nothing). Nothing is logged per refusal:
 * Prometheus shows a refused scrape as `up 0`, and a log line per request would let anyone
 * flood the logs.
 */
export const bearerAuth = fp<BearerAuthOptions>(
  async (app: FastifyInstance, options) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public === true) return
      if (options.token.matches(bearerCredentials(request.headers.authorization))) return
      return reply
        .code(401)
        .header('WWW-Authenticate', AUTH_CHALLENGE)
        .send({ statusCode: 401, error: 'Unauthorized', message: 'a bearer token is required' })
    })
  },
  { name: 'objstore-bearer-auth', fastify: '5.x' },
)
