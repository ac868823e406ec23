import envSchemaLoader from 'env-schema'
import { checkLoggingEnv, type LoggingSettings } from '../logging/settings.js'
import { parseTagLabels } from '../sources/s3/settings.js'
import { type BucketGroup, parseBucketMetrics, type ScanFolds } from './bucket-groups.js'
import { ConfigError } from './config-error.js'
import { readDotenv } from './dotenv.js'
import { EllipsisError, expandDriveList } from './drive-ranges.js'
import { type PriceTable, parsePriceTable } from './env/prices.js'
import { type BucketSelection, parseBucketSelection } from './env/scanner.js'
import { groupsNamedNotGiven, unusedGroupSettings } from './group-settings.js'
import { checkRequirements } from './requirements.js'
import {
  CREDENTIAL_URL_VARIABLES,
  type Env,
  envSchema,
  GUARDED_VARIABLES,
  SECRET_VARIABLES,
} from './schema.js'
import { UNOPTIMISED_AJV as ajv, describeExpected, type PropertySchema } from './schema-helpers.js'
import { shownValue as quoted } from './shown-value.js'
import {
  driveListText,
  emptyValueProblems,
  otherSourceVariables,
  SOURCE_SELECTING_VARIABLES,
  type StartupSummary,
  startupSummary,
} from './source-checks.js'
import { unknownVariables } from './unknown-variables.js'
import { withoutCredentials } from './url-credentials.js'

/**
 * Validated configuration: the environment variables, parsed once. DRIVES is expanded to a list of
 * paths, LOG_TARGETS and BUCKETS are lists, the glob lists are compiled and SHARD is {index, count}.
 * BUCKET_GROUPS and SCAN_FOLDS are not variables: the groups BUCKET_METRICS writes, and what it
 * asks the scan to fold (bucket-groups.ts); PRICES neither: STORAGE_PRICES and REQUEST_PRICES
 * parsed (env/prices.ts).
 */
export type Config = Readonly<
  Omit<Env, 'DRIVES' | 'LOG_TARGETS' | keyof BucketSelection> & {
    DRIVES: readonly string[]
    LOG_TARGETS: LoggingSettings['LOG_TARGETS']
    BUCKET_GROUPS: readonly BucketGroup[]
    SCAN_FOLDS: ScanFolds
    PRICES: PriceTable
  } & BucketSelection
>

export { ConfigError }

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
}

export interface LoadOptions {
  /** Path of a dotenv file read when present (variables in `env` win); false to read none. */
  dotenvPath?: string | false
  /**
   * Values given on the command line (`objstore-exporter --source s3`), by variable name, with the
   * flag that set them: they win over the environment and the .env file, and go through the same
   * checks (an error line names the flag).
   */
  overrides?: ReadonlyMap<string, { readonly text: string; readonly flag: string }>
}

/** A variable that looks meant for the exporter but is not one of its names; worth a warning. */
interface ConfigWarning {
  readonly variable: string
  readonly closest: string
  /** Where it was set: `the environment` or `.env line 3`. */
  readonly origin: string
}

export interface LoadedConfig {
  readonly config: Config
  readonly warnings: readonly ConfigWarning[]
  /** Variables set for a source other than BUCKETS_SOURCE's, which it never reads (sorted). */
  readonly otherSourceVariables: readonly string[]
  /** Variables set for an opt-in BUCKET_METRICS group it leaves out (nothing reads them), by group. */
  readonly unusedGroupSettings: ReturnType<typeof unusedGroupSettings>
  /** Opt-in groups BUCKET_METRICS names that BUCKETS_SOURCE cannot give. */
  readonly groupsNotGiven: ReturnType<typeof groupsNamedNotGiven>
  /** The active source, its endpoint, the bucket selection, the interval and drives: the start-up line. */
  readonly summary: StartupSummary
  /**
   * Every variable's validated value as the schema holds it (defaults applied, before lists and
   * globs are parsed), and where each set one came from (`the environment`, `.env line 3`,
   * `--source`); unset variables have no origin: they hold their default.
   */
  readonly effective: Readonly<Record<string, string | number | boolean>>
  readonly origins: ReadonlyMap<string, string>
}

/** Where a value came from; undefined for the environment, the usual case, which lines leave unsaid. */
interface SourcedValue {
  readonly text: string
  readonly origin?: string
}

/**
 * Reads and validates the configuration from `env` (process.env in production, a plain object in
 * tests). Throws ConfigError listing every bad variable; never prints or exits itself.
 */
export function loadConfig(env: Record<string, string | undefined>, options: LoadOptions = {}): Config {
  return loadConfiguration(env, options).config
}

/**
 * loadConfig, with the warnings the caller should log once it has a logger: unknown variables
 * that look meant for the exporter. Values from the environment and from the .env file take one
 * path: surrounding whitespace dropped, blank meaning unset, numbers in plain decimal, the schema.
 */
export function loadConfiguration(
  env: Record<string, string | undefined>,
  options: LoadOptions = {},
): LoadedConfig {
  const problems: string[] = []
  const empty = new Set<string>()
  const values = sourcedValues(env, options.dotenvPath ?? '.env', problems, empty)
  // A flag wins over both; an empty one is unset, as an empty variable is.
  for (const [name, { text, flag }] of options.overrides ?? [])
    if (text.trim() !== '') values.set(name, { text: text.trim(), origin: flag })
  const properties = envSchema.properties as Record<string, PropertySchema>
  const warnings: ConfigWarning[] = []
  for (const unknown of unknownVariables(values.keys(), Object.keys(properties), GUARDED_VARIABLES)) {
    const origin = values.get(unknown.name)?.origin
    if (unknown.security) {
      problems.push(
        `${unknown.name}: not a variable of objstore-exporter; did you mean ${unknown.closest}? A security setting is never ignored: rename or remove it${originSuffix(origin)}`,
      )
    } else if (SOURCE_SELECTING_VARIABLES.has(unknown.closest)) {
      problems.push(
        `${unknown.name}: not a variable of objstore-exporter; did you mean ${unknown.closest}? It chooses which store is read, so it is never ignored: rename or remove it${originSuffix(origin)}`,
      )
    } else
      warnings.push({ variable: unknown.name, closest: unknown.closest, origin: origin ?? 'the environment' })
  }
  // `S3_ENDPOINT_URL=` with S3_ENDPOINT unset: empty, but as much a wrong turn to another store.
  for (const unknown of unknownVariables(empty, Object.keys(properties), GUARDED_VARIABLES)) {
    if (SOURCE_SELECTING_VARIABLES.has(unknown.closest) && !values.has(unknown.closest))
      problems.push(
        `${unknown.name}: set but empty, and not a variable of objstore-exporter; did you mean ${unknown.closest}? It chooses which store is read, so it is never ignored: rename or remove it`,
      )
  }

  // Numbers reach Ajv as numbers, already checked, so its Number() coercion never runs on them.
  const data: Record<string, string | number> = {}
  for (const [name, property] of Object.entries(properties)) {
    const value = values.get(name)
    if (value === undefined) continue
    if (property.type !== 'number' && property.type !== 'integer') data[name] = value.text
    else {
      const number = decimal(value.text, property.type)
      if (number === undefined) problems.push(badValueLine(name, property, value))
      else data[name] = number
    }
  }

  let raw: Env | undefined
  try {
    raw = envSchemaLoader<Env>({ schema: structuredClone(envSchema), data, env: false, dotenv: false, ajv })
  } catch (error) {
    const errors = (error as { errors?: AjvError[] }).errors
    if (!errors) throw error
    const named = new Set(problems.map((line) => line.split(/[=:]/)[0]))
    problems.push(...describeErrors(errors, values).filter((line) => !named.has(line.split(/[=:]/)[0])))
  }
  if (raw !== undefined) problems.push(...emptyValueProblems(raw, empty))
  if (problems.length > 0 || raw === undefined) throw new ConfigError(problems)
  const config = checkRelations(raw)
  return {
    config,
    warnings,
    otherSourceVariables: otherSourceVariables(raw, values.keys()),
    unusedGroupSettings: unusedGroupSettings(raw, new Set(values.keys())),
    groupsNotGiven: groupsNamedNotGiven(raw),
    summary: startupSummary(raw, config.DRIVES),
    effective: Object.freeze({ ...raw }),
    origins: new Map([...values].map(([name, value]) => [name, value.origin ?? 'the environment'])),
  }
}

/**
 * Every non-blank value of the .env file and the environment, trimmed, with where it came from;
 * the environment wins unless it leaves the variable empty. Problems of the file go to `problems`,
 * the names set but blank (in both, when in both) to `empty`.
 */
function sourcedValues(
  env: Record<string, string | undefined>,
  dotenvPath: string | false,
  problems: string[],
  empty: Set<string>,
): Map<string, SourcedValue> {
  const values = new Map<string, SourcedValue>()
  const add = (name: string, value: string | undefined, origin?: string) => {
    if (value === undefined) return
    // An empty variable means "unset" (a common shell and compose idiom), so defaults still apply;
    // the few a source refuses empty are checked by emptyValueProblems.
    if (value.trim() === '') {
      if (!values.has(name)) empty.add(name)
      return
    }
    empty.delete(name)
    values.set(name, origin === undefined ? { text: value.trim() } : { text: value.trim(), origin })
  }
  if (dotenvPath !== false) {
    const dotenv = readDotenv(dotenvPath)
    problems.push(...dotenv.problems)
    for (const [name, entry] of dotenv.entries) add(name, entry.value, `${dotenvPath} line ${entry.line}`)
  }
  for (const [name, value] of Object.entries(env)) add(name, value)
  return values
}

/**
 * A number written in plain decimal, as the schema's type wants it; undefined for anything else.
 * Ajv's own coercion is Number(): it reads `0x2642` as 9794, `1e3` as 1000, and `1e400` as
 * Infinity, which passes minimum and maximum (they compare finite numbers only).
 */
function decimal(text: string, type: 'number' | 'integer'): number | undefined {
  const pattern = type === 'integer' ? /^-?[0-9]+$/ : /^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/
  if (!pattern.test(text)) return undefined
  const number = Number(text)
  return Number.isFinite(number) ? number : undefined
}

function originSuffix(origin: string | undefined): string {
  return origin === undefined ? '' : ` (${origin})`
}

function badValueLine(name: string, property: PropertySchema, value: SourcedValue | undefined): string {
  return `${name}=${shownValue(name, value?.text ?? '')}: expected ${describeExpected(property)}${originSuffix(value?.origin)}`
}

/** Rules that span variables, which a per-property schema cannot state. */
function checkRelations(raw: Env): Config {
  const problems: string[] = checkRequirements(raw)
  let drives: string[] = []
  try {
    const listed = driveListText(raw)
    drives = listed === '' ? [] : expandDriveList(listed)
    if (listed !== '' && drives.length === 0) problems.push('DRIVES: expected at least one drive path')
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
  const logging = checkLoggingEnv(raw)
  problems.push(...logging.problems)
  const { selection, problems: selectionProblems } = parseBucketSelection(raw)
  problems.push(...selectionProblems)
  problems.push(...parseTagLabels(raw.BUCKET_TAG_LABELS).problems)
  const bucketMetrics = parseBucketMetrics(raw.BUCKET_METRICS)
  problems.push(...bucketMetrics.problems)
  const prices = parsePriceTable(raw)
  problems.push(...prices.problems)
  if (problems.length > 0) throw new ConfigError(problems)
  const parsed = {
    DRIVES: Object.freeze(drives),
    LOG_TARGETS: logging.targets,
    PRICES: prices.table,
    ...selection,
  }
  return Object.freeze({ ...raw, ...parsed, ...bucketMetrics.parsed })
}

function describeErrors(errors: readonly AjvError[], values: ReadonlyMap<string, SourcedValue>): string[] {
  const lines = new Map<string, string>()
  for (const error of errors) {
    const name = error.instancePath.replace(/^\//, '')
    if (!name || lines.has(name)) continue
    const property = (envSchema.properties as Record<string, PropertySchema | undefined>)[name]
    const value = values.get(name)
    lines.set(
      name,
      property
        ? badValueLine(name, property, value)
        : `${name}=${shownValue(name, value?.text ?? '')}: expected ${error.message ?? 'a valid value'}${originSuffix(value?.origin)}`,
    )
  }
  return [...lines.values()]
}

/**
 * A bad value as an error line may show it: secrets hidden, URLs without their credentials, a
 * long one cut (shown-value.ts).
 */
function shownValue(name: string, value: string): string {
  if (SECRET_VARIABLES.has(name)) return '(value hidden)'
  return quoted(CREDENTIAL_URL_VARIABLES.has(name) ? withoutCredentials(value) : value)
}
