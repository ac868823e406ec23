import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Answer, EventReceiver } from '../../events/receiver.js'
import { AUTH_CHALLENGE, BearerToken, bearerCredentials } from '../../security/bearer-token.js'

/**
 * The most a delivery's body may hold: an SNS message is at most 256 KiB, its envelope and JSON
 * escapes under twice that; a store's one-record document a few kilobytes.
 */
export const MAX_EVENT_BODY_BYTES = 1024 * 1024

export interface EventsRouteOptions {
  /** EVENTS_AUTH_TOKEN. */
  readonly token: string
  readonly receiver: EventReceiver
}

/** The token a delivery carries: `Authorization: Bearer`, else the `token` query parameter. */
function presented(request: FastifyRequest): string | undefined {
  const header = bearerCredentials(request.headers.authorization)
  if (header !== undefined) return header
  const query = request.url.indexOf('?')
  if (query < 0) return undefined
  return new URLSearchParams(request.url.slice(query + 1)).get('token') ?? undefined
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).send({ statusCode: answer.status, message: answer.message })
}

/**
 * `POST /events` (only registered when EVENTS_AUTH_TOKEN is set): its own token, compared in
 * constant time, checked before the body is read; a body of any content type (SNS posts
 * text/plain) up to MAX_EVENT_BODY_BYTES. Public to the server's own authentication: a store cannot
 * send the scrape credentials, and Ceph RGW's push endpoint and SNS cannot add a header at all, so
 * the token may come as a query parameter. Nothing is logged per refused delivery (anyone could
 * flood the logs); the events_refused_total counters say it.
 */
export async function eventsRoute(app: FastifyInstance, options: EventsRouteOptions): Promise<void> {
  const token = new BearerToken(options.token)
  const { receiver } = options
  // This plugin's scope only: every content type read as text, JSON parsed by the receiver.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: MAX_EVENT_BODY_BYTES },
    (_request, body, done) => done(null, body),
  )
  app.post(
    '/events',
    {
      config: { public: true },
      bodyLimit: MAX_EVENT_BODY_BYTES,
      onRequest: async (request, reply) => {
        if (!token.matches(presented(request)))
          return send(reply.header('WWW-Authenticate', AUTH_CHALLENGE), receiver.refuse('unauthorized'))
      },
      errorHandler: (error: FastifyError, _request, reply) => {
        if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, receiver.refuse('too_large'))
        if (error.statusCode !== undefined && error.statusCode < 500)
          return send(reply, receiver.refuse('malformed'))
        throw error
      },
    },
    async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : ''
      return send(reply, await receiver.receive(body))
    },
  )
}
