import envSchemaLoader from 'env-schema'
import { EllipsisError, expandDriveList } from './ellipsis.js'
import { logHttpProblems } from './env/log-http.js'
import { scannerProblems } from './env/scanner.js'
import { checkRequirements } from './requirements.js'
import { CREDENTIAL_URL_VARIABLES, type Env, envSchema, SECRET_VARIABLES } from './schema.js'
import { type PropertySchema, patternMeaning } from './schema-helpers.js'
import { withoutCredentials } from './url-credentials.js'

/** Validated configuration: the environment variables, with DRIVES expanded to a list of paths. */
export type Config = Readonly<Omit<Env, 'DRIVES'> & { DRIVES: readonly string[] }>

/** Start-up refused: one line per bad variable, ready to print as is. */
export class ConfigError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'))
    this.name = 'ConfigError'
  }
}

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
}

export interface LoadOptions {
  /** Path of a dotenv file read when present (variables in `env` win); false to read none. */
  dotenvPath?: string | false
}

/**
 * Reads and validates the configuration from `env` (process.env in production, a plain object in
 * tests). Throws ConfigError listing every bad variable; never prints or exits itself.
 */
export function loadConfig(env: Record<string, string | undefined>, options: LoadOptions = {}): Config {
  const dotenvPath = options.dotenvPath ?? '.env'
  // An empty variable means "unset" (a common shell and compose idiom), so defaults still apply.
  // Blank counts as empty: Ajv would otherwise coerce "  " to the number 0 and accept it.
  const data = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  )
  const infinite = infiniteNumbers(data)
  let raw: Env
  try {
    raw = envSchemaLoader<Env>({
      schema: structuredClone(envSchema),
      data,
      env: false,
      dotenv: dotenvPath === false ? false : { path: dotenvPath },
    })
  } catch (error) {
    const errors = (error as { errors?: AjvError[] }).errors
    if (!errors) throw error
    throw new ConfigError([...infinite, ...describeErrors(errors, data)])
  }
  if (infinite.length > 0) throw new ConfigError(infinite)
  return checkRelations(raw)
}

/**
 * Ajv coerces "Infinity" and "1e400" to Infinity, and then skips minimum and maximum (they only
 * compare finite numbers), so `PORT=1e400` would pass. Numbers must be finite; refuse those here.
 */
function infiniteNumbers(data: Record<string, string | undefined>): string[] {
  const lines: string[] = []
  for (const [name, property] of Object.entries(envSchema.properties as Record<string, PropertySchema>)) {
    const value = data[name]
    if (value === undefined || (property.type !== 'number' && property.type !== 'integer')) continue
    const number = Number(value)
    if (number === Number.POSITIVE_INFINITY || number === Number.NEGATIVE_INFINITY)
      lines.push(badValueLine(name, property, value))
  }
  return lines
}

function badValueLine(name: string, property: PropertySchema, value: string | undefined): string {
  return `${name}=${shownValue(name, value ?? '')}: expected ${describeExpected(property)}`
}

/** Rules that span variables, which a per-property schema cannot state. */
function checkRelations(raw: Env): Config {
  const problems: string[] = checkRequirements(raw)
  let drives: string[] = []
  try {
    drives = expandDriveList(raw.DRIVES === '' ? raw.DATA_DIR : raw.DRIVES)
    if (drives.length === 0) problems.push('DRIVES: expected at least one drive path')
  } catch (error) {
    if (!(error instanceof EllipsisError)) throw error
    problems.push(`DRIVES: ${error.message}`)
  }
  const maxParity = Math.floor(drives.length / 2)
  if (drives.length > 0 && raw.EC_PARITY > maxParity) {
    problems.push(
      `EC_PARITY=${raw.EC_PARITY}: expected at most half the drive count (${drives.length} drive(s), so at most ${maxParity})`,
    )
  }
  problems.push(...logHttpProblems(raw))
  problems.push(...scannerProblems(raw))
  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze({ ...raw, DRIVES: Object.freeze(drives) })
}

function describeErrors(errors: readonly AjvError[], data: Record<string, string | undefined>): string[] {
  const lines = new Map<string, string>()
  for (const error of errors) {
    const name = error.instancePath.replace(/^\//, '')
    if (!name || lines.has(name)) continue
    const property = (envSchema.properties as Record<string, PropertySchema | undefined>)[name]
    lines.set(
      name,
      property
        ? badValueLine(name, property, data[name])
        : `${name}=${shownValue(name, data[name] ?? '')}: expected ${error.message ?? 'a valid value'}`,
    )
  }
  return [...lines.values()]
}

/** A bad value as an error line may show it: secrets hidden, URLs without their credentials. */
function shownValue(name: string, value: string): string {
  if (SECRET_VARIABLES.has(name)) return '(value hidden)'
  return JSON.stringify(CREDENTIAL_URL_VARIABLES.has(name) ? withoutCredentials(value) : value)
}

/** Says in words what a property accepts, from the same schema that validated it. */
export function describeExpected(schema: PropertySchema): string {
  if (schema.enum) return `one of ${schema.enum.join(', ')}`
  const bounds: string[] = []
  if (schema.minimum !== undefined) bounds.push(`>= ${schema.minimum}`)
  if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`)
  if (schema.maximum !== undefined) bounds.push(`<= ${schema.maximum}`)
  const range = bounds.length ? ` ${bounds.join(' and ')}` : ''
  switch (schema.type) {
    case 'integer':
      return `an integer${range}`
    case 'number':
      return `a number${range}`
    case 'boolean':
      return 'true or false'
    default:
      if (schema.pattern) return patternMeaning(schema.pattern) ?? `a string matching ${schema.pattern}`
      if (schema.minLength) return 'a non-empty string'
      return 'a string'
  }
}
