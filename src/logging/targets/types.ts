import type { Static, TObject, TProperties } from '@sinclair/typebox'
import type { DestinationStream, Level } from 'pino'
import type { LogLevel, LogMode } from '../modes.js'

/**
 * One place log entries go. A target is a pino destination stream plus an optional close for
 * shutdown; createLogger fans entries out to every configured target. A new target (file, syslog)
 * is one folder under targets/ exporting a LogTargetDefinition and one entry in targets/index.ts.
 */
export interface LogTarget {
  readonly name: string
  readonly stream: DestinationStream
  /** The lowest level this target accepts; entries below it are not written to it. */
  readonly level: Level
  /**
   * Delivers what is buffered within `withinMs`, then releases the target's resources; resolves
   * (never rejects) even when delivery fails. Entries written afterwards are not delivered.
   */
  close?(withinMs: number): Promise<void>
  /**
   * Delivery counters, for targets that deliver asynchronously: the logger collector writes them
   * as the logger_* families, `target` this target's name.
   */
  stats?(): DeliveryStats
  /** Fields the start-up line shows about this target (its endpoint, without credentials). */
  readonly banner?: Readonly<Record<string, unknown>>
}

/** Counters of an asynchronous target since start, read at scrape time. */
export interface DeliveryStats {
  /** Entries the receiver accepted. */
  readonly sent: number
  /** Entries in batches the receiver rejected for good (4xx other than 408/429). */
  readonly failed: number
  /** Entries dropped because the queue was full (oldest first), or left at shutdown. */
  readonly dropped: number
  /** Entries waiting, the batch being sent included. */
  readonly queued: number
  /** Whether the last delivery attempt succeeded (true before the first attempt). */
  readonly online: boolean
}

/** Where a target reports its own trouble: the other targets (never itself, to avoid a loop). */
export interface TargetReporter {
  info(details: object, message: string): void
  warn(details: object, message: string): void
}

/** What every target's factory gets besides its own settings. */
export interface TargetContext<Settings> {
  /** The target's own variables, validated (the keys of its `env`). */
  readonly settings: Settings
  /** LOG_LEVEL: what every target gets (silent: nothing). */
  readonly level: LogLevel
  /** LOG_MODE: the console's format (quiet raises the console's level to warn). */
  readonly mode: LogMode
  /** Test hooks and outputs (stdout, stderr, retry pacing) from createLogger's caller. */
  readonly options: TargetOptions
  /** A logger writing to every target except this one, for the target's reports about itself. */
  readonly report: TargetReporter
}

/** createLogger's options a target may read; production passes none. */
export interface TargetOptions {
  /** The console's output; stdout unless a test captures it. */
  readonly consoleOutput?: NodeJS.WritableStream & { isTTY?: boolean }
  /** Retry pacing of the targets that retry deliveries; tests shorten it. */
  readonly retryBackoff?: BackoffPolicy
}

/** How long to wait before retrying a delivery that failed with a retryable outcome. */
export interface BackoffPolicy {
  /** Delay ceiling of the first retry; doubled for each further consecutive failure. */
  readonly baseMs: number
  /** Upper bound of any delay, Retry-After included. */
  readonly maxMs: number
}

/**
 * Everything about one log target, in its folder: its variables (validation, defaults and the
 * docs/configuration.md's table derive from them), which of them are secret, what they require of each other, and
 * the factory. targets/index.ts lists the definitions; nothing else names a target.
 */
export interface LogTargetDefinition<Name extends string, Env extends TProperties> {
  /** The name LOG_TARGETS uses. */
  readonly name: Name
  /** Where it sends entries, in a few words, for LOG_TARGETS's description (Markdown). */
  readonly summary: string
  /** Its variables; named `LOG_<NAME>_*` by convention. */
  readonly env: Env
  /** Variables whose values are never echoed (errors, logs, pages) and are scrubbed from entries. */
  readonly secretVariables?: readonly (keyof Env & string)[]
  /** URL variables that may carry user info: shown only without it. */
  readonly credentialUrlVariables?: readonly (keyof Env & string)[]
  /** Variables that must be set (non-empty) when LOG_TARGETS includes this target. */
  readonly requiredWhenOn?: readonly (keyof Env & string)[]
  /** Rules spanning its variables, one line per problem; checked whatever LOG_TARGETS says. */
  problems?(settings: Static<TObject<Env>>): string[]
  /** The target, or undefined when it would receive nothing (its level is silent). */
  create(context: TargetContext<Static<TObject<Env>>>): LogTarget | undefined
}

/** Keeps a definition's literal name and variable types (for the settings type and the schema). */
export function defineLogTarget<const Name extends string, Env extends TProperties>(
  definition: LogTargetDefinition<Name, Env>,
): LogTargetDefinition<Name, Env> {
  return definition
}
