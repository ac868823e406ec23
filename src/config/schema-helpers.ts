import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox'
import type envSchemaLoader from 'env-schema'

/** A string restricted to a fixed set; a plain JSON-schema enum gives Ajv one clear error. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default: T[number]; description: string },
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/** The JSON-schema keywords the error messages and docs/configuration.md's table read. */
export type PropertySchema = TSchema & {
  type?: string
  enum?: readonly string[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  pattern?: string
  minLength?: number
  default?: unknown
  description?: string
}

const patternMeanings = new Map<string, string>()

/** A pattern with the words that explain it in an error line, instead of the bare regex. */
export function describedPattern(pattern: string, meaning: string): string {
  patternMeanings.set(pattern, meaning)
  return pattern
}

/** The words registered for `pattern` by describedPattern, if any. */
function patternMeaning(pattern: string): string | undefined {
  return patternMeanings.get(pattern)
}

/** The values a group of variables holds once validated, typed from its schema. */
export type EnvValues<P extends TProperties> = Readonly<Static<TObject<P>>>

/**
 * A variable that must be set in some mode. An empty variable means unset (so defaults apply),
 * which is why a required one must be named when it is empty rather than silently defaulted.
 * `E` is the variables the rule reads: a source states its rules over its own variables.
 */
export interface Requirement<E = Record<string, unknown>> {
  readonly variable: keyof E & string
  /** The mode, in words, for the error line: "required when <when>". */
  readonly when: string
  readonly applies: (env: E) => boolean
  /** An environment that puts the exporter in that mode; the configuration tests sweep these. */
  readonly example: Readonly<Record<string, string>>
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

/**
 * env-schema's Ajv, set for a schema compiled once per process and run once: no optimising passes
 * over the code it generates (Ajv's code.optimize), and the schema not checked against the JSON
 * Schema meta-schema (validateSchema), which compiles that meta-schema first: together about as
 * much CPU as the rest of the compile. Both options are read at each compile. The unit tests check
 * the schema against the meta-schema instead (test/unit/config-schema.test.ts).
 */
export const UNOPTIMISED_AJV: NonNullable<Parameters<typeof envSchemaLoader>[0]>['ajv'] = {
  customOptions: (ajv) => {
    ajv.opts.code.optimize = 0
    ajv.opts.validateSchema = false
    return ajv
  },
}
