import { StringEnum } from '../schema-helpers.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export const LOG_MODES = ['json', 'pretty', 'quiet'] as const

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
}
