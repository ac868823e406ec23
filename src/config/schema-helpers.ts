import { type TSchema, Type } from '@sinclair/typebox'

/** A string restricted to a fixed set; a plain JSON-schema enum gives Ajv one clear error. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default: T[number]; description: string },
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/** The JSON-schema keywords the error messages and the README table read. */
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
export function patternMeaning(pattern: string): string | undefined {
  return patternMeanings.get(pattern)
}
