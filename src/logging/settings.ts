import { type Static, type TObject, Type } from '@sinclair/typebox'
import { describedPattern, StringEnum } from '../config/schema-helpers.js'
import { shownText, shownValue } from '../config/shown-value.js'
import { LOG_LEVELS, LOG_MODES } from './modes.js'
import { LOG_TARGET_DEFINITIONS, LOG_TARGET_NAMES, type LogTargetName } from './targets/index.js'

export type { LogTargetName } from './targets/index.js'

/** Names joined by `+` (as `console+http` always was) or `,`; which names exist is judged by parseLogTargets. */
const TARGET_LIST_PATTERN = describedPattern(
  '^[a-z0-9_-]+( *[+,] *[a-z0-9_-]+)*$',
  `names from ${LOG_TARGET_NAMES.join(', ')}, joined by + or , (such as ${LOG_TARGET_NAMES.join('+')})`,
)

/** `console` (stdout, in `LOG_MODE`), `http` (...): each target with its summary. */
const describedTargets = LOG_TARGET_DEFINITIONS.map(
  (target) => `\`${target.name}\` (${target.summary})`,
).join(', ')

/** Logger settings shared by every target. */
const sharedEnv = {
  LOG_LEVEL: StringEnum(LOG_LEVELS, {
    default: 'info',
    description: 'Minimum level logged by every target.',
  }),
  LOG_MODE: StringEnum(LOG_MODES, {
    default: 'auto',
    description:
      'Console format (also `--log.format`): `json` (one object a line), `logfmt` (`key=value` pairs, as node_exporter logs), `pretty` (human-readable, coloured only on a TTY), `quiet` (json, warnings and errors only, no banner); `auto` is `pretty` when stdout is a terminal, `json` otherwise.',
  }),
  LOG_TARGETS: Type.String({
    default: 'console',
    pattern: TARGET_LIST_PATTERN,
    description: `Where log entries go: ${describedTargets}; one or more, joined by \`+\` or \`,\` (\`${LOG_TARGET_NAMES.join('+')}\`, \`${LOG_TARGET_NAMES.join(',')}\`).`,
  }),
}

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (
  intersection: infer I,
) => void
  ? I
  : never
type TargetEnvs = UnionToIntersection<(typeof LOG_TARGET_DEFINITIONS)[number]['env']>

/** Every logging variable: the shared ones, then each target's, in registry order (docs/configuration.md's order). */
export const loggingEnv: typeof sharedEnv & TargetEnvs = Object.assign(
  {},
  sharedEnv,
  ...LOG_TARGET_DEFINITIONS.map((target) => target.env),
)

/** The logging variables as the environment gives them (LOG_TARGETS still text). */
export type LoggingEnv = Static<TObject<typeof loggingEnv>>

/** The logging variables once parsed: what createLogger reads (Config has this shape). */
export type LoggingSettings = Omit<LoggingEnv, 'LOG_TARGETS'> & {
  readonly LOG_TARGETS: readonly LogTargetName[]
}

/** Every target's secret variables: never echoed, scrubbed from every entry. */
export const LOGGING_SECRET_VARIABLES: readonly string[] = LOG_TARGET_DEFINITIONS.flatMap(
  (target) => target.secretVariables ?? [],
)

/** Every target's URL variables that may carry user info. */
export const LOGGING_CREDENTIAL_URL_VARIABLES: readonly string[] = LOG_TARGET_DEFINITIONS.flatMap(
  (target) => target.credentialUrlVariables ?? [],
)

/**
 * A LOG_TARGETS value (already of the schema's shape) as target names in registry order, or the
 * one line that says what is wrong with it.
 */
export function parseLogTargets(value: string): { targets: LogTargetName[] } | { problem: string } {
  const names = value.split(/[+,]/).map((name) => name.trim())
  const refuse = (reason: string) => ({ problem: `LOG_TARGETS=${shownValue(value)}: ${reason}` })
  const unknown = names.filter((name) => !(LOG_TARGET_NAMES as readonly string[]).includes(name))
  if (unknown.length > 0) {
    const distinct = [...new Set(unknown)]
    return refuse(
      `unknown target${distinct.length > 1 ? 's' : ''} ${shownText(distinct.join(', '))}; expected names from ${LOG_TARGET_NAMES.join(', ')}`,
    )
  }
  const twice = names.find((name, index) => names.indexOf(name) !== index)
  if (twice !== undefined) return refuse(`${twice} named twice; expected each target at most once`)
  return { targets: LOG_TARGET_NAMES.filter((name) => names.includes(name)) }
}

/**
 * The logging settings parsed and checked once, at start-up: LOG_TARGETS as a list, the required
 * variables of each target that is on, and every target's own rules. `problems` is empty when all is well.
 */
export function checkLoggingEnv(env: LoggingEnv): { targets: readonly LogTargetName[]; problems: string[] } {
  const parsed = parseLogTargets(env.LOG_TARGETS)
  const problems: string[] = []
  if ('problem' in parsed) problems.push(parsed.problem)
  const targets = 'targets' in parsed ? parsed.targets : []
  const values = env as Record<string, unknown>
  for (const target of LOG_TARGET_DEFINITIONS) {
    const on = targets.includes(target.name)
    for (const variable of (on && target.requiredWhenOn) || []) {
      if (values[variable] === '' || values[variable] === undefined)
        problems.push(`${variable}: required when LOG_TARGETS includes ${target.name}`)
    }
    // A target's rules read only its own variables, which env holds (TypeScript cannot see that
    // through the union of definitions).
    problems.push(...(target.problems?.(env as never) ?? []))
  }
  return { targets: Object.freeze(targets), problems }
}
