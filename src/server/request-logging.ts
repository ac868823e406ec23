import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * Fastify's request logging, off: Prometheus logs its scrapes already, and a line per request
 * would only be noise. Fastify's switch also silences its default error handler, so an answer of
 * 500 (an error nothing handled) left no trace at all; those are logged here, with the route and
 * the error (never headers).
 */
export class ServerErrorsOnly extends LogController {
  constructor() {
    super({ disableRequestLogging: true })
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // 503 is deliberate (load shedding, shutting down) and may come in floods; 500 is a failure.
    if (reply.statusCode !== 500) return
    reply.log.error(
      { err: error, method: request.method, route: request.routeOptions.url, statusCode: reply.statusCode },
      'request failed',
    )
  }
}
