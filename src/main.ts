import { type Config, ConfigError, loadConfig } from './config/load.js'
import { createExporter } from './exporter.js'
import { createLogger } from './logging/create-logger.js'
import { VERSION } from './version.js'

/** Entry point: everything that touches process state (env, signals, exit codes) lives here. */
async function main(): Promise<void> {
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    // One line per bad variable, no stack trace: this is the operator's mistake, not ours.
    for (const line of error.lines)
      process.stderr.write(`objstore-exporter: invalid configuration: ${line}\n`)
    process.exit(2)
  }
  const logging = createLogger(config)
  const { logger } = logging
  const exporter = await createExporter(config, { logger })
  await exporter.app.listen({ host: config.HOST, port: config.PORT })
  logger.info(
    {
      version: VERSION,
      address: `http://${config.HOST}:${config.PORT}${config.METRICS_PATH}`,
      drives: config.DRIVES,
      namespace: config.METRICS_NAMESPACE,
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
      process.exit(1)
    }, config.SHUTDOWN_TIMEOUT_MS)
    forced.unref()
    exporter
      .close()
      .then(() => logging.flush(Math.max(0, config.SHUTDOWN_TIMEOUT_MS / 2)))
      .then(() => {
        clearTimeout(forced)
        process.exitCode = 0
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error during shutdown')
        process.exitCode = 1
      })
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`objstore-exporter: failed to start: ${message}\n`)
  process.exit(1)
})
