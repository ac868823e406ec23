import type { PropertySchema } from './schema-helpers.js'

/** The keywords a variable's schema may use, by its type: what validateEnv checks. */
const NUMBER_KEYWORDS = ['type', 'default', 'minimum', 'maximum', 'exclusiveMinimum']
const CHECKED: Readonly<Record<string, ReadonlySet<string>>> = {
  boolean: new Set(['type', 'default']),
  integer: new Set(NUMBER_KEYWORDS),
  number: new Set(NUMBER_KEYWORDS),
  string: new Set(['type', 'default', 'pattern', 'minLength', 'maxLength', 'enum']),
}
/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set(['description', 'title', 'examples'])

export interface EnvValidation {
  /** Every property: the given value, or its default when none was given. */
  readonly values: Record<string, unknown>
  /** The properties whose value the schema refuses, in schema order. */
  readonly refused: readonly string[]
}

const patterns = new Map<string, RegExp>()

/**
 * Validates the configuration's values against the variables' schemas (one flat object of
 * strings, numbers and booleans): defaults for what is not given, "true"/"false" read as booleans,
 * and the JSON Schema keywords the variables use, with JSON Schema's meaning (patterns as Unicode
 * regular expressions, lengths in code points). What Ajv did through env-schema, without
 * compiling a validator at every start (the compile and Ajv's meta-schema cost more CPU than the
 * rest of the configuration together). A keyword it does not know is a programming error: throws.
 */
export function validateEnv(
  properties: Readonly<Record<string, PropertySchema>>,
  data: Readonly<Record<string, string | number>>,
): EnvValidation {
  const values: Record<string, unknown> = {}
  const refused: string[] = []
  for (const [name, schema] of Object.entries(properties)) {
    const given = Object.hasOwn(data, name) ? data[name] : undefined
    if (given === undefined) {
      if (schema.default === undefined) refused.push(name)
      else values[name] = schema.default
      continue
    }
    const value = accepted(name, schema, given)
    if (value === undefined) refused.push(name)
    else values[name] = value
  }
  return { values, refused }
}

/** The value as the schema types it, or undefined when the schema refuses it. */
function accepted(name: string, schema: PropertySchema, given: string | number): unknown {
  const checked = CHECKED[String(schema.type)]
  for (const keyword of Object.keys(schema))
    if (!checked?.has(keyword) && !ANNOTATIONS.has(keyword))
      throw new Error(
        `${name}: schema keyword ${keyword} (type ${String(schema.type)}) is not checked by validateEnv`,
      )
  switch (schema.type) {
    case 'boolean':
      return given === 'true' ? true : given === 'false' ? false : undefined
    case 'integer':
    case 'number': {
      if (typeof given !== 'number' || !Number.isFinite(given)) return undefined
      if (schema.type === 'integer' && !Number.isInteger(given)) return undefined
      if (schema.minimum !== undefined && given < schema.minimum) return undefined
      if (schema.maximum !== undefined && given > schema.maximum) return undefined
      if (schema.exclusiveMinimum !== undefined && given <= schema.exclusiveMinimum) return undefined
      return given
    }
    case 'string': {
      if (typeof given !== 'string') return undefined
      const length = lengthInCodePoints(given)
      if (schema.minLength !== undefined && length < schema.minLength) return undefined
      if (schema.maxLength !== undefined && length > schema.maxLength) return undefined
      if (schema.enum !== undefined && !schema.enum.includes(given)) return undefined
      if (schema.pattern !== undefined && !patternOf(schema.pattern).test(given)) return undefined
      return given
    }
    default:
      return undefined
  }
}

function lengthInCodePoints(text: string): number {
  let length = 0
  for (const _ of text) length++
  return length
}

function patternOf(pattern: string): RegExp {
  let compiled = patterns.get(pattern)
  if (compiled === undefined) {
    compiled = new RegExp(pattern, 'u')
    patterns.set(pattern, compiled)
  }
  return compiled
}
