import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from './config/load.js'
import type { EventReceiver } from './events/receiver.js'
import type { SecretRedactor } from './logging/secret-redactor.js'
import type { ScrapeAssembler } from './metrics/exposition/scrape-assembler.js'
import type { RequestAuthenticator } from './security/access.js'
import type { HttpsOptions } from './security/server-security.js'
import { openApi } from './server/api/openapi.js'
import { apiRoutes } from './server/api/routes.js'
import { connectionLimit } from './server/connection-limits.js'
import { lazySchemaCompilers } from './server/lazy-compilers.js'
import { answerNotFound } from './server/not-found.js'
import { authentication } from './server/plugins/authentication.js'
import { loadShedding } from './server/plugins/load-shedding.js'
import { securityHeaders } from './server/plugins/security-headers.js'
import { ALLOWED_METHODS, answerClientError, refuseConnect } from './server/raw-answers.js'
import type { Readiness } from './server/readiness.js'
import { ServerErrorsOnly } from './server/request-logging.js'
import { eventsRoute } from './server/routes/events.js'
import { healthRoutes } from './server/routes/health.js'
import { landingRoute } from './server/routes/landing.js'
import { metricsRoute } from './server/routes/metrics.js'
import type { ExporterStatus } from './server/status.js'

export interface AppDependencies {
  readonly config: Config
  readonly logger: Logger
  readonly assembler: ScrapeAssembler
  readonly readiness: Readiness
  readonly status: ExporterStatus
  /** Serve HTTPS with these (given at construction: Fastify cannot add TLS later). */
  readonly https?: HttpsOptions | undefined
  /** Require these credentials (a bearer token or basic auth) on every route but the probes. */
  readonly authenticator?: RequestAuthenticator | undefined
  /** Headers the web configuration file adds to (or sets instead of) the exporter's own. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Blanks secrets out of the page and the API: error texts may quote the SDK's own credentials
   * (the AWS_* chain) and a URL's credentials as well as our secret variables, in any encoding.
   */
  readonly redactor: SecretRedactor
  /** `POST /events`, when EVENTS_AUTH_TOKEN is set: the change events' receiver. */
  readonly events?: EventReceiver | undefined
}

/**
 * Fastify's validation message with the offending property named: "querystring must NOT have
 * additional properties" alone does not say which parameter was mistyped.
 */
function describeSchemaErrors(
  errors: ReadonlyArray<{ instancePath: string; message?: string; params: Record<string, unknown> }>,
  dataVar: string,
): Error {
  return new Error(
    errors
      .map(({ instancePath, message = 'is invalid', params }) => {
        const extra = typeof params.additionalProperty === 'string' ? `: "${params.additionalProperty}"` : ''
        return `${dataVar}${instancePath} ${message}${extra}`
      })
      .join(', '),
  )
}

/** The HTTP app without listening: tests drive it with inject() or listen on port 0 themselves. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps
  const limits = connectionLimit(config)
  const options = {
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new ServerErrorsOnly(),
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
    connectionTimeout: limits.socketTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.nodeOptions.requestTimeout,
    clientErrorHandler: answerClientError,
    // Fastify's default drops unknown properties silently: `?limt=10` would answer as if no limit
    // was asked. Kept, they fail the schemas' additionalProperties: false with a 400 naming them.
    ajv: { customOptions: { removeAdditional: false } },
    // Each route's schemas compiled on its first request, not at start (see lazy-compilers.ts).
    schemaController: lazySchemaCompilers,
    schemaErrorFormatter: describeSchemaErrors,
  }
  // With `https` Fastify builds an https.Server, typed as another FastifyInstance variant; routes
  // and plugins never touch the raw server, and the TLS reloader gets it as a tls.Server.
  const app = (deps.https
    ? Fastify({
        ...options,
        https: { ...deps.https, ...limits.nodeOptions, handshakeTimeout: limits.handshakeTimeoutMs },
      })
    : Fastify({ ...options, http: limits.nodeOptions })) as unknown as FastifyInstance
  limits.apply(app.server, deps.logger)
  app.server.on('connect', refuseConnect)
  await app.register(securityHeaders, { headers: deps.headers ?? {} })
  await app.register(loadShedding, {
    maxEventLoopDelayMs: config.MAX_EVENT_LOOP_DELAY_MS,
    retryAfterSeconds: 10,
  })
  if (deps.authenticator) await app.register(authentication, { authenticator: deps.authenticator })
  await app.register(openApi, { authentication: deps.authenticator?.scheme })
  await app.register(healthRoutes, { readiness: deps.readiness })
  const { redactor } = deps
  await app.register(landingRoute, { metricsPath: config.METRICS_PATH, status: deps.status, redactor })
  await app.register(apiRoutes, { status: deps.status, redactor })
  await app.register(metricsRoute, {
    path: config.METRICS_PATH,
    assembler: deps.assembler,
    scrapeTimeoutSeconds: config.SCRAPE_TIMEOUT_SECONDS,
  })
  if (deps.events && config.EVENTS_AUTH_TOKEN !== '')
    await app.register(eventsRoute, { token: config.EVENTS_AUTH_TOKEN, receiver: deps.events })
  // The default 404 echoes the method and path back; say less, and tell a wrong method apart.
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    if (request.method !== 'GET' && app.hasRoute({ method: 'GET', url: path }))
      return reply
        .code(405)
        .header('Allow', ALLOWED_METHODS)
        .send({ statusCode: 405, error: 'Method Not Allowed', message: `allowed: ${ALLOWED_METHODS}` })
    return answerNotFound(request, reply, config.METRICS_PATH)
  })
  return app
}
