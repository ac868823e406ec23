import type { FastifyReply, FastifyRequest } from 'fastify'
import { escapeHtml } from './landing/format.js'

/** What a lost visitor is pointed to. */
function places(metricsPath: string): readonly (readonly [string, string])[] {
  return [
    ['/', 'the landing page'],
    [metricsPath, 'the metrics'],
    ['/api/v1/buckets', 'buckets (JSON)'],
    ['/api/v1/drives', 'drives (JSON)'],
    ['/api/v1/status', 'status (JSON)'],
    ['/api/openapi.json', 'the OpenAPI document of the JSON API'],
  ]
}

/**
 * The 404: a short HTML page linking the landing page, the metrics, the API and its OpenAPI
 * document to a browser (Accept names text/html), JSON naming them to anything else. Neither echoes
 * the path asked for.
 */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply, metricsPath: string) {
  const links = places(metricsPath)
  reply.code(404)
  if ((request.headers.accept ?? '').includes('text/html')) {
    const items = links.map(
      ([path, what]) => `<li><a href="${escapeHtml(path)}">${escapeHtml(path)}</a>: ${what}</li>`,
    )
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Not found: objstore-exporter</title></head>
<body>
<h1>No such page</h1>
<p>This exporter serves:</p>
<ul>
${items.join('\n')}
</ul>
</body>
</html>
`)
  }
  return reply.send({
    statusCode: 404,
    error: 'Not Found',
    message: `no such page; see ${links.map(([path]) => path).join(', ')}`,
  })
}
