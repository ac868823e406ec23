import pino, { type Level, type Logger, type LoggerOptions } from 'pino'
import { type LogLevel, lowestLevel } from './modes.js'
import { REDACT_PATHS, secretRedactorOf } from './redaction.js'
import { REDACTED, type SecretRedactor } from './secret-redactor.js'
import type { LoggingSettings } from './settings.js'
import { LOG_TARGET_DEFINITIONS } from './targets/index.js'
import type {
  DeliveryStats,
  LogTarget,
  TargetContext,
  TargetOptions,
  TargetReporter,
} from './targets/types.js'

/** What createLogger reads of the configuration (Config has this shape). */
export type LoggerConfig = LoggingSettings

export interface LoggerBundle {
  readonly logger: Logger
  readonly targets: readonly LogTarget[]
  /** The counters of the targets that deliver asynchronously (the logger collector reads them). */
  readonly deliveries: readonly TargetDelivery[]
  /** What the start-up line says about logging: the targets and each one's own fields. */
  readonly banner: Readonly<Record<string, unknown>>
  /** The secrets' redactor every entry goes through: pages and printed results use it too. */
  readonly redactor: SecretRedactor
  /**
   * Shutdown: delivers what asynchronous targets hold within `withinMs`, then releases them.
   * Entries logged afterwards still reach the console.
   */
  close(withinMs: number): Promise<void>
}

/** A target's delivery counters, under its LOG_TARGETS name. */
export interface TargetDelivery {
  readonly target: string
  stats(): DeliveryStats
}

export interface CreateLoggerOptions extends TargetOptions {
  /** Where a target reports its own trouble when no other target exists; stderr by default. */
  readonly fallbackReportOutput?: NodeJS.WritableStream
  /** Where the AWS SDK finds credentials of its own (AMBIENT_SECRET_VARIABLES); process.env by default. */
  readonly environment?: Readonly<Record<string, string | undefined>>
}

/** Builds the pino logger from the configuration, fanning out to every configured target. */
export function createLogger(config: LoggerConfig, options: CreateLoggerOptions = {}): LoggerBundle {
  const level = config.LOG_LEVEL
  const redactor = secretRedactorOf(config, options.environment ?? process.env)
  const baseOptions = (minimum: LogLevel): LoggerOptions => ({
    level: minimum,
    base: { pid: process.pid },
    // Never let a credential reach a target, whichever code path logs a request, client or error.
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    ...(redactor.active ? { hooks: { streamWrite: redactor.redact } } : {}),
  })

  const targets: LogTarget[] = []
  /**
   * A target's reports about itself go to every other target (stderr when there is none), never
   * into itself; built on first use, once every target exists (targets report asynchronously).
   */
  const reporterFor = (name: string): TargetReporter => {
    let reporter: Logger | undefined
    const get = () => {
      if (reporter) return reporter
      const others = targets.filter((target) => target.name !== name)
      const streams = others.map((target) => ({ stream: target.stream, level: target.level }))
      if (streams.length === 0) {
        const output = options.fallbackReportOutput ?? pino.destination({ fd: 2, sync: true })
        streams.push({ stream: output, level: level === 'silent' ? 'warn' : (level as Level) })
      }
      reporter = pino(baseOptions(level), pino.multistream(streams)).child({ logTarget: name })
      return reporter
    }
    return {
      info: (details, message) => get().info(details, message),
      warn: (details, message) => get().warn(details, message),
    }
  }
  for (const definition of LOG_TARGET_DEFINITIONS) {
    if (!config.LOG_TARGETS.includes(definition.name)) continue
    const target = createTarget(definition, config, {
      level,
      mode: config.LOG_MODE,
      options,
      report: reporterFor(definition.name),
    })
    if (target) targets.push(target)
  }

  const logger = pino(
    baseOptions(lowestLevel(targets.map((target) => target.level))),
    pino.multistream(targets.map((target) => ({ stream: target.stream, level: target.level }))),
  )
  return {
    logger,
    targets,
    deliveries: targets.flatMap((target) => {
      const stats = target.stats?.bind(target)
      return stats ? [{ target: target.name, stats }] : []
    }),
    redactor,
    banner: Object.assign(
      { logTargets: config.LOG_TARGETS },
      ...targets.map((target) => target.banner ?? {}),
    ),
    async close(withinMs) {
      await Promise.all(targets.map((target) => target.close?.(withinMs)))
    },
  }
}

type AnyDefinition = (typeof LOG_TARGET_DEFINITIONS)[number]

/**
 * One target from its definition, given the whole settings (each target reads only the variables
 * it declared in `env`, which the settings hold).
 */
function createTarget(
  definition: AnyDefinition,
  settings: LoggingSettings,
  context: Omit<TargetContext<LoggingSettings>, 'settings'>,
): LogTarget | undefined {
  const create = definition.create as (context: TargetContext<LoggingSettings>) => LogTarget | undefined
  return create({ settings, ...context })
}
