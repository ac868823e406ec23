import type { Logger } from 'pino'

/**
 * Routes process warnings (process.emitWarning: the AWS SDK's NodeVersionSupportWarning,
 * deprecations, MaxListenersExceededWarning) through the logger, so every line the exporter
 * prints is one JSON object (or one pretty line): Node's own printer writes a warning as several
 * plain lines on stderr, which a log pipeline reading JSON lines cannot parse. `--no-warnings` is
 * a flag of the node command, not of a program; Node prints through an ordinary 'warning'
 * listener, so removing the listeners and adding ours replaces the printer and keeps the event.
 */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning')
  process.on('warning', (warning: Error & { code?: string }) => {
    logger.warn(
      {
        warning: {
          name: warning.name,
          ...(warning.code ? { code: warning.code } : {}),
          message: warning.message,
        },
      },
      `process warning: ${warning.message.split('\n')[0] ?? warning.name}`,
    )
  })
}
