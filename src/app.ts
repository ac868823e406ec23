import underPressure from '@fastify/under-pressure'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from './config/load.js'
import { secretValues } from './config/secret-values.js'
import type { ExporterRegistry } from './metrics/registry.js'
import type { Readiness } from './server/readiness.js'
import { healthRoutes } from './server/routes/health.js'
import { landingRoute } from './server/routes/landing.js'
import { metricsRoute } from './server/routes/metrics.js'
import type { ExporterStatus } from './server/status.js'

export interface AppDependencies {
  readonly config: Config
  readonly logger: Logger
  readonly registry: ExporterRegistry
  readonly readiness: Readiness
  readonly status: ExporterStatus
}

/** The HTTP app without listening: tests drive it with inject() or listen on port 0 themselves. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Scrapes are logged by Prometheus already; per-request lines would only be noise.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  })
  await app.register(underPressure, {
    maxEventLoopDelay: config.MAX_EVENT_LOOP_DELAY_MS,
    retryAfter: 10,
  })
  await app.register(healthRoutes, { readiness: deps.readiness })
  await app.register(landingRoute, {
    metricsPath: config.METRICS_PATH,
    status: deps.status,
    secrets: secretValues(config),
  })
  await app.register(metricsRoute, {
    path: config.METRICS_PATH,
    registry: deps.registry,
    scrapeTimeoutSeconds: config.SCRAPE_TIMEOUT_SECONDS,
  })
  return app
}
