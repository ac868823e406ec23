import type { FastifyInstance } from 'fastify'
import { scrapeBody } from '../../metrics/exposition/body.js'
import { CONTENT_TYPES, negotiateFormat } from '../../metrics/exposition/format.js'
import type { ScrapeAssembler } from '../../metrics/exposition/scrape-assembler.js'
import { scrapeBudgetMs } from '../scrape-budget.js'

export interface MetricsRouteOptions {
  readonly path: string
  readonly assembler: ScrapeAssembler
  readonly scrapeTimeoutSeconds: number
}

/** The scrape endpoint: negotiates text 0.0.4 or OpenMetrics, and gzip when the client accepts it. */
export async function metricsRoute(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  app.get(options.path, async (request, reply) => {
    const budgetMs = scrapeBudgetMs(
      options.scrapeTimeoutSeconds,
      request.headers['x-prometheus-scrape-timeout-seconds'],
    )
    const content = await options.assembler.collect(budgetMs)
    const format = negotiateFormat(request.headers.accept)
    const compress = acceptsGzip(request.headers['accept-encoding'])
    const body = await scrapeBody(content, format, compress)
    reply.header('Content-Type', CONTENT_TYPES[format]).header('Vary', 'Accept, Accept-Encoding')
    if (compress) reply.header('Content-Encoding', 'gzip')
    // The parts are sent as they are: concatenating them would copy megabytes per scrape.
    reply.header('Content-Length', body.byteLength)
    return body.whole() ?? body.stream()
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
