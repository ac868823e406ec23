import type { FastifyInstance } from 'fastify'
import type { SecretRedactor } from '../../logging/secret-redactor.js'
import { VERSION } from '../../version.js'
import { renderLandingPage } from '../landing-page.js'
import type { ExporterStatus } from '../status.js'

export interface LandingOptions {
  readonly metricsPath: string
  readonly status: ExporterStatus
  readonly redactor: SecretRedactor
}

/** GET /: what runs and how its sources and drives are doing, rendered from the last scrape. */
export async function landingRoute(app: FastifyInstance, options: LandingOptions): Promise<void> {
  app.get('/', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(
      renderLandingPage({
        version: VERSION,
        nodeVersion: process.version,
        metricsPath: options.metricsPath,
        status: options.status,
        redactor: options.redactor,
        nowMs: Date.now(),
      }),
    ),
  )
}
