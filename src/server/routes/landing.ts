import type { FastifyInstance } from 'fastify'
import type { SecretRedactor } from '../../logging/secret-redactor.js'
import { VERSION } from '../../version.js'
import { nonDecimalNumbers } from '../api/decimal-query.js'
import { type LandingQuery, LandingQuerySchema, listStateOf } from '../landing/query.js'
import { renderLandingPage } from '../landing-page.js'
import type { ExporterStatus } from '../status.js'

export interface LandingOptions {
  readonly metricsPath: string
  readonly status: ExporterStatus
  readonly redactor: SecretRedactor
}

/**
 * GET /: what runs and how its sources and drives are doing, rendered from the last scrape, and
 * the buckets as its query asks (validated by the API's schemas). A query it refuses is still a
 * page, with a 400 and the reason where the list would be, so the form can be corrected.
 */
export async function landingRoute(app: FastifyInstance, options: LandingOptions): Promise<void> {
  const nonDecimal = nonDecimalNumbers(LandingQuerySchema)
  app.get<{ Querystring: LandingQuery }>(
    '/',
    {
      schema: { querystring: LandingQuerySchema },
      attachValidation: true,
      // Before validation coerces `page=0x2` to 2: the query as the client wrote it.
      preValidation: async (request) => {
        request.nonDecimalProblem = nonDecimal(request.query)
      },
    },
    async (request, reply) => {
      const list = listStateOf(request.query, request.nonDecimalProblem ?? request.validationError?.message)
      // Rendered before the status is set: a page that fails to render is a 500, not the query's 400.
      const page = renderLandingPage({
        version: VERSION,
        nodeVersion: process.version,
        metricsPath: options.metricsPath,
        status: options.status,
        redactor: options.redactor,
        nowMs: Date.now(),
        list,
      })
      return reply
        .code('problem' in list ? 400 : 200)
        .type('text/html; charset=utf-8')
        .send(page)
    },
  )
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The landing page's refusal of a number not written in decimal (set before validation). */
    nonDecimalProblem?: string | undefined
  }
}
