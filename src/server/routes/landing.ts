import type { FastifyInstance } from 'fastify'
import { VERSION } from '../../version.js'

export interface LandingOptions {
  readonly metricsPath: string
}

/** GET /: what this is and where to go, as node_exporter's landing page does. */
export async function landingRoute(app: FastifyInstance, options: LandingOptions): Promise<void> {
  const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>objstore-exporter</title></head>
<body>
<h1>objstore-exporter</h1>
<p>Version ${escapeHtml(VERSION)}. Object storage capacity and bucket usage for Prometheus.</p>
<ul>
<li><a href="${escapeHtml(options.metricsPath)}">Metrics</a></li>
<li><a href="/healthz">Health (alive)</a></li>
<li><a href="/readyz">Readiness (serving real data)</a></li>
</ul>
</body>
</html>
`
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page))
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
