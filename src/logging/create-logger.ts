import pino, { type Logger, type StreamEntry } from 'pino'
import type { Config } from '../config/load.js'
import { effectiveLevel } from './modes.js'
import { createConsoleTarget } from './targets/console.js'
import type { LogTarget } from './targets/types.js'

export interface LoggerBundle {
  readonly logger: Logger
  readonly targets: readonly LogTarget[]
  /** Flushes every target, bounded by the deadline. */
  flush(deadlineMs: number): Promise<void>
}

export interface CreateLoggerOptions {
  /** The console's output; stdout unless a test captures it. */
  readonly consoleOutput?: NodeJS.WritableStream & { isTTY?: boolean }
}

/** Builds the pino logger from the configuration, fanning out to every configured target. */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_MODE'>,
  options: CreateLoggerOptions = {},
): LoggerBundle {
  const level = effectiveLevel(config.LOG_LEVEL, config.LOG_MODE)
  const targets: LogTarget[] = []
  if (level !== 'silent') {
    targets.push(
      createConsoleTarget({
        mode: config.LOG_MODE,
        level,
        ...(options.consoleOutput ? { output: options.consoleOutput } : {}),
      }),
    )
  }
  const streams: StreamEntry[] = targets.map((target) => ({ stream: target.stream, level: target.level }))
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      // Never let a credential reach a target, whichever code path logs a request or a client.
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.secretAccessKey', '*.sessionToken'],
        censor: '[redacted]',
      },
    },
    pino.multistream(streams),
  )
  return {
    logger,
    targets,
    async flush(deadlineMs) {
      await Promise.all(targets.map((target) => target.flush?.(deadlineMs)))
    },
  }
}
