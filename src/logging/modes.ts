export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export const LOG_MODES = ['auto', 'json', 'logfmt', 'pretty', 'quiet'] as const

export type LogMode = (typeof LOG_MODES)[number]
/** A console format once `auto` is decided. */
export type ConsoleFormat = Exclude<LogMode, 'auto'>

/** `auto`: people read a terminal (pretty), programs read everything else (json). */
export function consoleFormat(mode: LogMode, output: { isTTY?: boolean }): ConsoleFormat {
  if (mode !== 'auto') return mode
  return output.isTTY ? 'pretty' : 'json'
}
export type LogLevel = (typeof LOG_LEVELS)[number]

const ORDER: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

/** quiet means warnings and errors only, whatever LOG_LEVEL says below that. */
export function effectiveLevel(level: LogLevel, mode: LogMode): LogLevel {
  if (mode !== 'quiet') return level
  return ORDER.indexOf(level) > ORDER.indexOf('warn') ? level : 'warn'
}

/** The level the logger itself needs so that every target gets what it accepts; silent for none. */
export function lowestLevel(levels: readonly LogLevel[]): LogLevel {
  let lowest: LogLevel = 'silent'
  for (const level of levels) if (ORDER.indexOf(level) < ORDER.indexOf(lowest)) lowest = level
  return lowest
}
