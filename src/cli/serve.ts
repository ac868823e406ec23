import type { LoadedConfig } from '../config/load.js'
import { createExporter, type Exporter } from '../exporter.js'
import { createLogger } from '../logging/create-logger.js'
import { routeProcessWarnings } from '../logging/process-warnings.js'
import { settleStuckWalks, stuckWalks } from '../sources/fs/stuck-walks.js'
import { VERSION } from '../version.js'
import { loadWithFlags, logConfigWarnings, refuseConfiguration } from './flags.js'

/**
 * `objstore-exporter serve` (the default command, and `npm start`): serves /metrics until SIGTERM
 * or SIGINT; SIGHUP is logged and ignored. Everything that touches process state (env, signals, exit codes) lives here.
 */
export async function serve(options: Readonly<Record<string, unknown>>): Promise<void> {
  let loaded: LoadedConfig
  try {
    loaded = loadWithFlags(process.env, options)
  } catch (error) {
    refuseConfiguration(error)
  }
  const { config, summary } = loaded
  const logging = createLogger(config)
  const { logger } = logging
  routeProcessWarnings(logger)
  logConfigWarnings(logger, loaded)
  let exporter: Exporter
  try {
    exporter = await createExporter(config, {
      logger,
      redactor: logging.redactor,
      logDeliveries: logging.deliveries,
    })
  } catch (error) {
    // An unreadable or mismatched token or TLS file is the same kind of mistake as a bad variable.
    refuseConfiguration(error)
  }
  await exporter.app.listen({ host: config.HOST, port: config.PORT })
  logger.info(
    {
      version: VERSION,
      address: `${exporter.scheme}://${config.HOST}:${config.PORT}${config.METRICS_PATH}`,
      authentication: exporter.authentication,
      namespace: config.METRICS_NAMESPACE,
      ...summary,
      ...logging.banner,
    },
    'objstore-exporter listening',
  )

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    const forced = setTimeout(() => {
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutdown deadline passed; exiting')
      if (stuckWalks() > 0) endBySignal(signal)
      else process.exit(1)
    }, config.SHUTDOWN_TIMEOUT_MS)
    forced.unref()
    let stuck = 0
    exporter
      .close()
      .then(async () => {
        // A walk stopped by the shutdown ends in milliseconds; one stuck in the kernel never does.
        stuck = await settleStuckWalks(1000)
        if (stuck > 0)
          logger.warn({ stuck, signal }, 'walk threads stuck in the filesystem; ending by signal')
      })
      // Entries queued for the HTTP log target get half the budget; the forced exit bounds the whole.
      .then(() => logging.close(Math.max(0, config.SHUTDOWN_TIMEOUT_MS / 2)))
      .then(() => {
        clearTimeout(forced)
        process.exitCode = 0
        if (stuck > 0) endBySignal(signal)
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error during shutdown')
        process.exitCode = 1
        if (stuckWalks() > 0) endBySignal(signal)
      })
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  // SIGHUP's default action ends a process without a word (a closed terminal, an init system or
  // an operator expecting a reload). There is nothing to reload: say so, and keep serving.
  process.on('SIGHUP', (signal) =>
    logger.warn(
      { signal },
      'SIGHUP ignored: the configuration is read once, at start; restart to apply a change',
    ),
  )
}

/**
 * Ends the process by `signal`'s default action, as a program that does not handle it ends. For
 * when a walk thread is stuck in a system call on a hung filesystem: Node joins every thread on
 * exit (process.exit too), so the process would hang until killed.
 */
function endBySignal(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal)
  process.kill(process.pid, signal)
  // Should something still handle it: nothing but SIGKILL is certain.
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000)
}
