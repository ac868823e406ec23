import type { DestinationStream, Level } from 'pino'

/**
 * One place log entries go. A target is a pino destination stream plus an optional close for
 * shutdown; createLogger fans entries out to every configured target, so a new target (file,
 * syslog) is one new module returning this shape and one entry in create-logger's factory table.
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
  /** Delivery counters, for targets that deliver asynchronously (the exporter's self-metrics). */
  stats?(): DeliveryStats
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
