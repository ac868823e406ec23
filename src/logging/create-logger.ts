import pino, { type Level, type Logger, type LoggerOptions, type MultiStreamRes } from 'pino'
import { type LogTargetName, parseLogTargets } from '../config/env/logging.js'
import type { Config } from '../config/load.js'
import type { BackoffPolicy } from './http/backoff.js'
import { effectiveLevel, type LogLevel, lowestLevel } from './modes.js'
import { createSecretScrubber, REDACT_PATHS, REDACTED, secretValuesOf } from './redaction.js'
import { createConsoleTarget } from './targets/console.js'
import { createHttpTarget } from './targets/http.js'
import type { DeliveryStats, LogTarget, TargetReporter } from './targets/types.js'

export type LoggerConfig = Pick<
  Config,
  | 'LOG_LEVEL'
  | 'LOG_MODE'
  | 'LOG_TARGETS'
  | 'LOG_HTTP_ENDPOINT'
  | 'LOG_HTTP_AUTH_TOKEN'
  | 'LOG_HTTP_BATCH_SIZE'
  | 'LOG_HTTP_FLUSH_INTERVAL_MS'
  | 'LOG_HTTP_QUEUE_SIZE'
  | 'LOG_HTTP_TIMEOUT_MS'
>

export interface LoggerBundle {
  readonly logger: Logger
  readonly targets: readonly LogTarget[]
  /** The HTTP target's counters when it is on (the logger collector reads them). */
  readonly httpDelivery: { stats(): DeliveryStats } | undefined
  /**
   * Shutdown: delivers what asynchronous targets hold within `withinMs`, then releases them.
   * Entries logged afterwards still reach the console.
   */
  close(withinMs: number): Promise<void>
}

export interface CreateLoggerOptions {
  /** The console's output; stdout unless a test captures it. */
  readonly consoleOutput?: NodeJS.WritableStream & { isTTY?: boolean }
  /** Where a target reports its own trouble when no other target exists; stderr by default. */
  readonly fallbackReportOutput?: NodeJS.WritableStream
  /** Retry pacing of the HTTP target; tests shorten it. */
  readonly httpBackoff?: BackoffPolicy
  /** Where the AWS SDK finds credentials of its own (AMBIENT_SECRET_VARIABLES); process.env by default. */
  readonly environment?: Readonly<Record<string, string | undefined>>
}

interface TargetContext {
  readonly config: LoggerConfig
  /** LOG_LEVEL: what every target gets. */
  readonly level: LogLevel
  /** The console's level: LOG_LEVEL raised to warn in quiet mode. */
  readonly consoleLevel: LogLevel
  readonly options: CreateLoggerOptions
  /** A logger writing to every target except `name`, for the target's reports about itself. */
  reporterFor(name: LogTargetName): TargetReporter
}

/** One factory per LOG_TARGETS name; undefined when the target would receive nothing (silent). */
const TARGET_FACTORIES: Record<LogTargetName, (context: TargetContext) => LogTarget | undefined> = {
  console: ({ config, consoleLevel, options }) =>
    consoleLevel === 'silent'
      ? undefined
      : createConsoleTarget({
          mode: config.LOG_MODE,
          level: consoleLevel,
          ...(options.consoleOutput ? { output: options.consoleOutput } : {}),
        }),
  http: ({ config, level, options, reporterFor }) =>
    level === 'silent'
      ? undefined
      : createHttpTarget({
          endpoint: config.LOG_HTTP_ENDPOINT,
          authToken: config.LOG_HTTP_AUTH_TOKEN,
          level,
          batchSize: config.LOG_HTTP_BATCH_SIZE,
          flushIntervalMs: config.LOG_HTTP_FLUSH_INTERVAL_MS,
          queueSize: config.LOG_HTTP_QUEUE_SIZE,
          timeoutMs: config.LOG_HTTP_TIMEOUT_MS,
          report: reporterFor('http'),
          ...(options.httpBackoff ? { backoff: options.httpBackoff } : {}),
        }),
}

/** Builds the pino logger from the configuration, fanning out to every configured target. */
export function createLogger(config: LoggerConfig, options: CreateLoggerOptions = {}): LoggerBundle {
  const level = config.LOG_LEVEL
  const consoleLevel = effectiveLevel(config.LOG_LEVEL, config.LOG_MODE)
  const scrub = createSecretScrubber(secretValuesOf(config, options.environment ?? process.env))
  const baseOptions = (minimum: LogLevel): LoggerOptions => ({
    level: minimum,
    base: { pid: process.pid },
    // Never let a credential reach a target, whichever code path logs a request, client or error.
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    ...(scrub ? { hooks: { streamWrite: scrub } } : {}),
  })

  const reporters: { name: LogTargetName; streams: MultiStreamRes }[] = []
  const context: TargetContext = {
    config,
    level,
    consoleLevel,
    options,
    reporterFor(name) {
      const streams = pino.multistream([])
      reporters.push({ name, streams })
      return pino(baseOptions(level), streams).child({ logTarget: name })
    },
  }
  const targets = parseLogTargets(config.LOG_TARGETS).flatMap((name) => TARGET_FACTORIES[name](context) ?? [])

  for (const reporter of reporters) {
    const others = targets.filter((target) => target.name !== reporter.name)
    for (const target of others) reporter.streams.add({ stream: target.stream, level: target.level })
    if (others.length === 0) {
      const output = options.fallbackReportOutput ?? pino.destination({ fd: 2, sync: true })
      reporter.streams.add({ stream: output, level: level === 'silent' ? 'warn' : (level as Level) })
    }
  }

  const logger = pino(
    baseOptions(lowestLevel(targets.map((target) => target.level))),
    pino.multistream(targets.map((target) => ({ stream: target.stream, level: target.level }))),
  )
  const http = targets.find((target) => target.name === 'http')
  return {
    logger,
    targets,
    httpDelivery: http?.stats ? { stats: http.stats.bind(http) } : undefined,
    async close(withinMs) {
      await Promise.all(targets.map((target) => target.close?.(withinMs)))
    },
  }
}
