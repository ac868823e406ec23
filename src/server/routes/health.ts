import type { FastifyInstance } from 'fastify'
import type { Readiness } from '../readiness.js'

/**
 * Liveness never waits on a source, and stays up under pressure so load never restarts the pod.
 * Both probes are public (no bearer token): kubelet cannot send one, and they carry no data.
 * Readiness means "can serve /metrics with real data": a usage snapshot exists (scanned or from
 * the state file). A source that is down does not make the exporter unready: taking it out of its
 * Service would not mend the store, and would hide the very series that say so (source_up 0, the
 * last good figures with their timestamps); the landing page gives the reason.
 */
export async function healthRoutes(app: FastifyInstance, options: { readiness: Readiness }): Promise<void> {
  app.get('/healthz', { config: { public: true, alwaysServed: true } }, async () => ({
    status: 'ok',
  }))
  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    const waitingFor = options.readiness.waitingFor()
    if (waitingFor.length > 0) return reply.code(503).send({ status: 'not ready', waitingFor })
    return { status: 'ready' }
  })
}
