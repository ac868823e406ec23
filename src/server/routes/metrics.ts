import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { CONTENT_TYPES, negotiateFormat, OPENMETRICS_EOF, renderFamilies } from '../../metrics/exposition.js'
import type { ExporterRegistry } from '../../metrics/registry.js'
import { scrapeBudgetMs } from '../scrape-budget.js'

const gzip = promisify(gzipCallback)

export interface MetricsRouteOptions {
  readonly path: string
  readonly registry: ExporterRegistry
  readonly scrapeTimeoutSeconds: number
}

/** The scrape endpoint: negotiates text 0.0.4 or OpenMetrics, and gzip when the client accepts it. */
export async function metricsRoute(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  app.get(options.path, async (request, reply) => {
    const budgetMs = scrapeBudgetMs(
      options.scrapeTimeoutSeconds,
      request.headers['x-prometheus-scrape-timeout-seconds'],
    )
    const families = await options.registry.collect(budgetMs)
    const format = negotiateFormat(request.headers.accept)
    let body = renderFamilies(families, format)
    if (format === 'openmetrics') body += OPENMETRICS_EOF
    reply.header('Content-Type', CONTENT_TYPES[format]).header('Vary', 'Accept, Accept-Encoding')
    if (acceptsGzip(request.headers['accept-encoding'])) {
      reply.header('Content-Encoding', 'gzip')
      return gzip(body)
    }
    return body
  })
}

export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false
  return header.split(',').some((coding) => {
    const [name = '', ...parameters] = coding.split(';').map((part) => part.trim().toLowerCase())
    const q = parameters.find((parameter) => parameter.startsWith('q='))
    return (name === 'gzip' || name === 'x-gzip') && (q === undefined || Number.parseFloat(q.slice(2)) > 0)
  })
}
