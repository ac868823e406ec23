import { effectiveLevel } from '../../modes.js'
import { defineLogTarget } from '../types.js'
import { createConsoleTarget } from './stream.js'

/** stdout, shaped by LOG_MODE; it has no variables of its own. */
export const consoleTarget = defineLogTarget({
  name: 'console',
  summary: 'stdout, in `LOG_MODE`',
  env: {},
  create({ level, mode, options }) {
    // quiet means warnings and errors only on the console; the other targets keep LOG_LEVEL.
    const consoleLevel = effectiveLevel(level, mode)
    if (consoleLevel === 'silent') return undefined
    return createConsoleTarget({
      mode,
      level: consoleLevel,
      ...(options.consoleOutput ? { output: options.consoleOutput } : {}),
    })
  },
})
