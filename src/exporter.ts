import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Server as TlsServer } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.js'
import type { StatfsFunction } from './collectors/drive-probe.js'
import { createDrivesCollector, type DrivesCollectorOptions } from './collectors/drives.js'
import { createEventsCollector } from './collectors/events.js'
import { createLoggerCollector } from './collectors/logger.js'
import { createPricesCollector, hasPrices } from './collectors/prices.js'
import { CollectorRunner } from './collectors/runner.js'
import { RuntimeMetrics } from './collectors/runtime.js'
import { createSourceRequestsCollector } from './collectors/source-requests.js'
import type { Collector } from './collectors/types.js'
import { createUsageCollector } from './collectors/usage.js'
import type { Config } from './config/load.js'
import { changeEventsOf } from './events/index.js'
import { seriesBudgetOf, UsageExposition } from './exposition/usage-exposition.js'
import type { TargetDelivery } from './logging/create-logger.js'
import { secretRedactorOf } from './logging/redaction.js'
import type { SecretRedactor } from './logging/secret-redactor.js'
import { ScrapeAssembler } from './metrics/exposition/scrape-assembler.js'
import type { ExpositionNaming } from './metrics/exposition/writer.js'
import { createScannerFromConfig } from './scanning/index.js'
import type { UsageScanner } from './scanning/scanner.js'
import { loadServerSecurity } from './security/server-security.js'
import { Readiness } from './server/readiness.js'
import type { ExporterStatus } from './server/status.js'
import { recordsByName, type UsageSnapshot } from './snapshot/snapshot.js'
import { measuredBytes } from './snapshot/stored-records.js'
import { SOURCES } from './sources/list.js'

export interface ExporterOptions {
  readonly logger: Logger
  /** The delivery counters of the log targets that have them (the logger_* families, a series per target). */
  readonly logDeliveries?: readonly TargetDelivery[]
  /** The logger's secret redactor, for the page and the API; built from config when absent. */
  readonly redactor?: SecretRedactor
  /** Injected only to simulate hung or failing filesystems in tests. */
  readonly statfs?: StatfsFunction
  /** The scanner's clock (a scan's start, which ages are measured against); injected only in tests. */
  readonly scanClock?: () => number
  /** Extra collectors, for tests of isolation. */
  readonly extraCollectors?: readonly Collector[]
  /** How long rendered runtime families are served again (RUNTIME_MAX_AGE_MS); set only in tests. */
  readonly runtimeMaxAgeMs?: number
  /** Between two progress lines of a running scan round (15 s); set only in tests. */
  readonly progressIntervalMs?: number
}

export interface Exporter {
  readonly app: FastifyInstance
  readonly readiness: Readiness
  /** The background bucket-usage scanner (tests trigger scans with scanNow()). */
  readonly scanner: UsageScanner
  /** `https` when TLS is on: what a scrape URL starts with. */
  readonly scheme: 'http' | 'https'
  /** What a request must carry: a bearer token, basic auth (the web configuration file), or nothing. */
  readonly authentication: 'bearer' | 'basic' | 'none'
  /** Stops background work and the HTTP server; in-flight requests finish first. */
  close(): Promise<void>
}

/** How the exporter's families are named: METRICS_NAMESPACE, and `server` when METRICS_SERVER_LABEL is set. */
export function expositionNaming(config: Config): ExpositionNaming {
  return {
    namespace: config.METRICS_NAMESPACE,
    constLabels: config.METRICS_SERVER_LABEL ? { server: config.METRICS_SERVER_LABEL } : {},
  }
}

/**
 * node_drive_unaccounted_bytes: for the fs source, on the drive whose path is DATA_DIR, when every
 * bucket folder is measured (no BUCKETS, BUCKETS_INCLUDE, BUCKETS_EXCLUDE or SHARD): a bucket left
 * out would count as unaccounted. The figures come from the snapshot; the scrape does only statfs.
 */
function reconciliation(
  config: Config,
  scanner: Pick<UsageScanner, 'onSnapshot'>,
): Pick<DrivesCollectorOptions, 'reconcile'> {
  const selected =
    config.BUCKETS.length > 0 ||
    config.BUCKETS_INCLUDE.length > 0 ||
    config.BUCKETS_EXCLUDE.length > 0 ||
    config.SHARD !== undefined
  const dataDir = resolve(config.DATA_DIR)
  const drive = config.DRIVES.find((path) => resolve(path) === dataDir)
  if (config.BUCKETS_SOURCE !== 'fs' || selected || drive === undefined) return {}
  // Summed when a snapshot is published, not on the scrape path: summed per scrape over 10,000
  // buckets, it and its garbage were 12-24 ms of every drives scrape (CPU profile, publication
  // under scrapes).
  let accounted: number | undefined
  scanner.onSnapshot((snapshot) => {
    accounted = accountedBy(snapshot)
  })
  return { reconcile: { drive, accountedBytes: () => accounted } }
}

/** Bytes a snapshot accounts for under DATA_DIR: its buckets' and those outside any bucket. */
function accountedBy(snapshot: UsageSnapshot): number | undefined {
  if (snapshot.outsideBucketsBytes === undefined) return undefined
  let bytes = snapshot.outsideBucketsBytes
  for (const record of snapshot.buckets) bytes += measuredBytes(record) ?? 0
  return bytes
}

/**
 * The composition root: config -> sources -> snapshot -> collectors -> scrape assembler
 * (exposition) -> HTTP app. Throws a
 * ConfigError (one line) when BUCKET_METRICS names an unknown group, or a token or TLS file is unreadable, empty, malformed or mismatched.
 */
export async function createExporter(config: Config, options: ExporterOptions): Promise<Exporter> {
  const { logger } = options
  const budget = seriesBudgetOf(config)
  const security = await loadServerSecurity(config, logger.child({ component: 'security' }))
  // Only a local source reads DATA_DIR: an S3 or RGW exporter leaves no folder where it runs.
  if (SOURCES.find((source) => source.name === config.BUCKETS_SOURCE)?.local)
    await mkdir(config.DATA_DIR, { recursive: true })
  const scanner = await createScannerFromConfig(config, logger.child({ component: 'scanner' }), {
    ...(options.scanClock ? { clock: options.scanClock } : {}),
    progressIntervalMs: options.progressIntervalMs,
  })
  // POST /events (EVENTS_AUTH_TOKEN): a change marks its key's range dirty (buckets with
  // subtotals) and starts the next round early.
  const events = changeEventsOf(
    config,
    {
      scanned: (bucket) => scanner.measures(bucket),
      measured: (bucket) => recordsByName(scanner.snapshot).get(bucket) !== undefined,
      requestRound: (pauseMs) => scanner.requestRound(pauseMs),
      keys: { changed: (bucket, key) => scanner.keyChanges.markChanged(bucket, key) },
    },
    logger.child({ component: 'events' }),
  )
  const naming = expositionNaming(config)
  const usageExposition = new UsageExposition(naming, {
    budget,
    logger: logger.child({ component: 'exposition' }),
  })
  // Rendered when published (the state file's snapshot included), before the first scrape asks.
  scanner.onSnapshot((snapshot) => usageExposition.prepare(snapshot))
  const drives = createDrivesCollector({
    drives: config.DRIVES,
    timeoutMs: config.DRIVE_TIMEOUT_MS,
    parity: config.EC_PARITY,
    logger: logger.child({ collector: 'drives' }),
    ...(options.statfs ? { statfs: options.statfs } : {}),
    ...reconciliation(config, scanner),
  })
  const collectors: Collector[] = [
    drives,
    createUsageCollector({
      snapshot: () => scanner.snapshot,
      exposition: usageExposition,
      source: config.BUCKETS_SOURCE,
      progress: () => scanner.progress,
    }),
    // What scans cost the store, for sources that send requests (s3, rgw).
    ...(scanner.sourceRequests
      ? [
          createSourceRequestsCollector({
            requests: scanner.sourceRequests,
            lastScanListingPages: () => scanner.lastScanListingPages,
          }),
        ]
      : []),
    // The operator's prices, when set: without them the scrape has no price family at all.
    ...(hasPrices(config.PRICES) ? [createPricesCollector(config.PRICES)] : []),
    ...(options.logDeliveries?.length ? [createLoggerCollector(options.logDeliveries)] : []),
    ...(events
      ? [
          createEventsCollector(
            () => events.receiver.counters.counts(),
            () => recordsByName(scanner.snapshot),
            config.BUCKET_GROUPS.includes('scan'),
          ),
        ]
      : []),
    ...(options.extraCollectors ?? []),
  ]
  const runner = new CollectorRunner(collectors, logger)
  const runtime = new RuntimeMetrics()
  const assembler = new ScrapeAssembler({
    ...naming,
    collection: runner,
    runtime,
    ...(options.runtimeMaxAgeMs === undefined ? {} : { runtimeMaxAgeMs: options.runtimeMaxAgeMs }),
  })
  const readiness = new Readiness()
  // Ready once a snapshot is rendered (only published snapshots are): at 100,000 buckets the first rendering takes some
  // 10 s after the state file is loaded, and scrapes meanwhile would go without the usage families
  // (a rolling update would swap a serving pod for one that is not serving yet).
  readiness.add('usage snapshot', () => usageExposition.hasRendered)
  const status: ExporterStatus = {
    startedAtMs: Date.now(),
    namespace: config.METRICS_NAMESPACE,
    source: config.BUCKETS_SOURCE,
    scanIntervalSeconds: config.SCAN_INTERVAL_SECONDS,
    collectors: () => runner.outcomes(),
    drives: () => config.DRIVES.map((path) => ({ path, state: drives.lastStates.get(path) })),
    waitingFor: () => readiness.waitingFor(),
    usage: () => scanner.snapshot,
    sourceFailure: () => scanner.sourceFailure,
    nextScanAtMs: () => scanner.nextScanAtMs,
    scanProgress: () => scanner.progress,
  }
  const app = await buildApp({
    config,
    logger,
    assembler,
    readiness,
    status,
    https: security.https,
    authenticator: security.authenticator,
    headers: security.headers,
    redactor: options.redactor ?? secretRedactorOf(config, process.env),
    events: events?.receiver,
  })
  // Fastify built an https.Server (a tls.Server) when given `https`; its types cannot say so.
  security.watch(security.https ? (app.server as unknown as TlsServer) : undefined)
  // Not waited for: the state file loads while the server listens (on a hung mount it would
  // never end); /readyz waits for the first snapshot, loaded or scanned. start() never rejects.
  void scanner.start()
  return {
    app,
    readiness,
    scheme: security.https ? 'https' : 'http',
    authentication: security.authenticator?.scheme ?? 'none',
    scanner,
    async close() {
      await security.close()
      events?.close()
      // Together: a running scan is aborted while in-flight scrapes finish.
      await Promise.all([scanner.close(), app.close()])
      await usageExposition.close()
      runtime.close()
    },
  }
}
