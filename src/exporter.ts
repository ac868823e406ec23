import { mkdir } from 'node:fs/promises'
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
import { Readiness } from './server/readiness.js'
import type { ExporterStatus } from './server/status.js'

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
  /** Stops background work and the HTTP server; in-flight requests finish first. */
  close(): Promise<void>
}

/** The composition root: config -> sources -> collectors -> registry -> HTTP app. */
export async function createExporter(config: Config, options: ExporterOptions): Promise<Exporter> {
  const { logger } = options
  await mkdir(config.DATA_DIR, { recursive: true })
  const drives = createDrivesCollector({
    drives: config.DRIVES,
    timeoutMs: config.DRIVE_TIMEOUT_MS,
    parity: config.EC_PARITY,
    logger: logger.child({ collector: 'drives' }),
    ...(options.statfs ? { statfs: options.statfs } : {}),
  })
  const collectors: Collector[] = [drives, ...(options.extraCollectors ?? [])]
  const runner = new CollectorRunner(collectors, logger)
  const runtime = new RuntimeMetrics()
  const registry = new ExporterRegistry({
    namespace: config.METRICS_NAMESPACE,
    runner,
    runtime,
  })
  const readiness = new Readiness()
  const status: ExporterStatus = {
    startedAtMs: Date.now(),
    namespace: config.METRICS_NAMESPACE,
    collectors: () => runner.outcomes(),
    drives: () => config.DRIVES.map((path) => ({ path, state: drives.lastStates.get(path) })),
    waitingFor: () => readiness.waitingFor(),
  }
  const app = await buildApp({ config, logger, registry, readiness, status })
  return {
    app,
    readiness,
    async close() {
      await app.close()
      runtime.close()
    },
  }
}
