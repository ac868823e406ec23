import { createRequire } from 'node:module'
import type { Level } from 'pino'
import pino from 'pino'
import type PinoPretty from 'pino-pretty'
import { consoleFormat, type LogMode } from '../../modes.js'
import type { LogTarget } from '../types.js'
import { logfmtDestination } from './logfmt.js'

export interface ConsoleTargetOptions {
  readonly mode: LogMode
  readonly level: Level
  /** Where lines go: stdout in production; any writable in tests. */
  readonly output?: NodeJS.WritableStream & { isTTY?: boolean; fd?: number }
}

/**
 * pino-pretty, loaded only in pretty mode (json is the production default; it costs some 40 ms of
 * start-up). It is CommonJS, so require() loads it synchronously, as target factories are.
 */
function loadPretty(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty
}

/**
 * The console: `json` writes pino's NDJSON as is; `logfmt` rewrites each line as key=value pairs;
 * `auto` is pretty on a terminal and json elsewhere; `pretty` formats for people, coloured only when
 * the output is a terminal (so piped or captured output has no escape codes); `quiet` is json
 * limited to warnings and errors (the level is raised by createLogger).
 */
export function createConsoleTarget(options: ConsoleTargetOptions): LogTarget {
  const output = options.output ?? process.stdout
  const format = consoleFormat(options.mode, output)
  if (format === 'pretty') {
    return {
      name: 'console',
      level: options.level,
      stream: loadPretty()({
        colorize: Boolean(output.isTTY),
        destination: output,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      }),
    }
  }
  const stream = output === process.stdout ? pino.destination({ fd: 1, sync: true }) : output
  if (format === 'logfmt') return { name: 'console', level: options.level, stream: logfmtDestination(stream) }
  return { name: 'console', level: options.level, stream }
}
