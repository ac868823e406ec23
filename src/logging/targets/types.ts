import type { DestinationStream, Level } from 'pino'

/**
 * One place log entries go. A target is a pino destination stream plus an optional flush for
 * shutdown; createLogger fans entries out to every configured target, so a new target (file,
 * syslog) is one new module returning this shape.
 */
export interface LogTarget {
  readonly name: string
  readonly stream: DestinationStream
  /** The lowest level this target accepts; entries below it are not written to it. */
  readonly level: Level
  /** Delivers what is buffered, bounded by the deadline; resolves even when delivery fails. */
  flush?(deadlineMs: number): Promise<void>
}
