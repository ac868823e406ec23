import { StringEnum } from '../schema-helpers.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export const LOG_MODES = ['json', 'pretty', 'quiet'] as const
/** Every log target there is; a new one (file, syslog) is one name here and one module in logging/targets. */
export const LOG_TARGET_NAMES = ['console', 'http'] as const

export type LogTargetName = (typeof LOG_TARGET_NAMES)[number]

/** `console`, `http`, `console+http`: every non-empty combination, names in declaration order. */
export const LOG_TARGET_CHOICES: readonly string[] = targetCombinations(LOG_TARGET_NAMES)

function targetCombinations(names: readonly string[]): string[] {
  const choices: string[] = []
  for (const name of names) choices.push(...choices.map((choice) => `${choice}+${name}`), name)
  // Single targets first, then pairs, and so on: the order the README and error lines show.
  return choices.sort((a, b) => a.split('+').length - b.split('+').length)
}

/** The target names of a validated LOG_TARGETS value. */
export function parseLogTargets(value: string): LogTargetName[] {
  return LOG_TARGET_NAMES.filter((name) => value.split('+').includes(name))
}

/** Logger settings shared by every target. */
export const loggingEnv = {
  LOG_LEVEL: StringEnum(LOG_LEVELS, {
    default: 'info',
    description: 'Minimum level logged by every target.',
  }),
  LOG_MODE: StringEnum(LOG_MODES, {
    default: 'json',
    description:
      'Console format: `json` (one object a line), `pretty` (human-readable, coloured only on a TTY), `quiet` (warnings and errors only, no banner).',
  }),
  LOG_TARGETS: StringEnum(LOG_TARGET_CHOICES, {
    default: 'console',
    description:
      'Where log entries go: `console` (stdout, in `LOG_MODE`), `http` (batches POSTed to `LOG_HTTP_ENDPOINT`), or both (`console+http`).',
  }),
}
