import { mkdir } from 'node:fs/promises'
import type { Server as TlsServer } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.js'
import type { StatfsFunction } from './collectors/drive-probe.js'
import { createDrivesCollector } from './collectors/drives.js'
import { CollectorRunner } from './collectors/runner.js'
import type { Collector } from './collectors/types.js'
import type { Config } from './config/load.js'
import { ExporterRegistry } from './metrics/registry.js'
import { RuntimeMetrics } from './metrics/runtime-metrics.js'
import { loadServerSecurity } from './security/server-security.js'
import { Readiness } from './server/readiness.js'

export interface ExporterOptions {
  readonly logger: Logger
  /** Injected only to simulate hung or failing filesystems in tests. */
  readonly statfs?: StatfsFunction
  /** Extra collectors, for tests of isolation. */
  readonly extraCollectors?: readonly Collector[]
}

export interface Exporter {
  readonly app: FastifyInstance
  readonly readiness: Readiness
  /** `https` when TLS is on: what a scrape URL starts with. */
  readonly scheme: 'http' | 'https'
  /** Stops background work and the HTTP server; in-flight requests finish first. */
  close(): Promise<void>
}

/**
 * The composition root: config -> sources -> collectors -> registry -> HTTP app. Throws a
 * ConfigError (one line) when a token or TLS file is unreadable, empty, malformed or mismatched.
 */
export async function createExporter(config: Config, options: ExporterOptions): Promise<Exporter> {
  const { logger } = options
  const security = await loadServerSecurity(config, logger.child({ component: 'security' }))
  await mkdir(config.DATA_DIR, { recursive: true })
  const collectors: Collector[] = [
    createDrivesCollector({
      drives: config.DRIVES,
      timeoutMs: config.DRIVE_TIMEOUT_MS,
      parity: config.EC_PARITY,
      logger: logger.child({ collector: 'drives' }),
      ...(options.statfs ? { statfs: options.statfs } : {}),
    }),
    ...(options.extraCollectors ?? []),
  ]
  const runtime = new RuntimeMetrics()
  const registry = new ExporterRegistry({
    namespace: config.METRICS_NAMESPACE,
    runner: new CollectorRunner(collectors, logger),
    runtime,
  })
  const readiness = new Readiness()
  const app = await buildApp({
    config,
    logger,
    registry,
    readiness,
    https: security.https,
    token: security.token,
  })
  // Fastify built an https.Server (a tls.Server) when given `https`; its types cannot say so.
  security.watch(security.https ? (app.server as unknown as TlsServer) : undefined)
  return {
    app,
    readiness,
    scheme: security.https ? 'https' : 'http',
    async close() {
      await security.close()
      await app.close()
      runtime.close()
    },
  }
}
