/*
 * A check compiled from a TypeBox schema into plain loops, for the one check that runs 100,000
 * times in a row: a state file's bucket records at start. TypeBox's own compiled check of the
 * record calls a closure per array and builds an entries array per map; this one indexes arrays
 * and walks maps in place, and answers the same for every value (test/unit/record-check.test.ts
 * compares the two over generated records and thousands of broken ones). It covers the keywords
 * the record's schema uses and refuses to compile any other, so a schema change it cannot follow
 * fails at start-up, in every test, not silently. TypeBox still says what is wrong with a record
 * that fails (Errors), and checks everything else.
 */
import { Kind, OptionalKind, type Static, type TSchema } from '@sinclair/typebox'

/** What each kind may carry besides its structure; anything else is refused. */
const KNOWN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  Object: ['properties', 'required'],
  Integer: ['minimum', 'maximum'],
  Number: ['minimum', 'maximum'],
  Array: ['items', 'minItems', 'maxItems'],
  Record: ['patternProperties', 'additionalProperties', 'maxProperties'],
  String: ['minLength', 'maxLength', 'pattern'],
  Boolean: [],
  Literal: ['const'],
  Union: ['anyOf'],
}
/** Keywords that say nothing about validity. */
const NOTES = new Set(['type', 'description', '$id', 'title'])

/** A compiled check: true when `value` is valid against the schema. */
export type RecordCheck<T extends TSchema> = (value: unknown) => value is Static<T>

export function compileRecordCheck<T extends TSchema>(schema: T): RecordCheck<T> {
  const compiler = new Compiler()
  const body = compiler.check(schema, 'value')
  const source = `${compiler.constants.join('\n')}\nreturn function check(value) {\n${body}\nreturn true\n}`
  return new Function('patterns', source)(compiler.patterns) as RecordCheck<T>
}

class Compiler {
  readonly constants: string[] = []
  readonly patterns: RegExp[] = []
  #names = 0

  #name(prefix: string): string {
    return `${prefix}${this.#names++}`
  }

  #pattern(source: string): string {
    const name = this.#name('pattern')
    this.constants.push(`const ${name} = patterns[${this.patterns.length}]`)
    this.patterns.push(new RegExp(source))
    return name
  }

  /** Statements that return false unless the value in variable `v` is valid against `schema`. */
  check(schema: TSchema, v: string): string {
    const kind = schema[Kind] as string
    const known = KNOWN_KEYWORDS[kind]
    if (!known) throw new Error(`record check: schema kind ${kind} is not supported`)
    for (const keyword of Object.keys(schema))
      if (!known.includes(keyword) && !NOTES.has(keyword))
        throw new Error(`record check: keyword ${keyword} of ${kind} is not supported`)
    switch (kind) {
      case 'Integer':
        return `if (!Number.isInteger(${v})${bounds(schema, v, 'minimum', 'maximum')}) return false`
      case 'Number':
        return `if (!Number.isFinite(${v})${bounds(schema, v, 'minimum', 'maximum')}) return false`
      case 'Boolean':
        return `if (typeof ${v} !== 'boolean') return false`
      case 'Literal':
        return `if (${v} !== ${JSON.stringify(schema.const)}) return false`
      case 'String': {
        const pattern = schema.pattern === undefined ? '' : ` || !${this.#pattern(schema.pattern)}.test(${v})`
        const length = bounds(schema, `${v}.length`, 'minLength', 'maxLength')
        return `if (typeof ${v} !== 'string'${length}${pattern}) return false`
      }
      case 'Union':
        return this.#union(schema, v)
      case 'Array':
        return this.#array(schema, v)
      case 'Object':
        return this.#object(schema, v)
      default:
        return this.#record(schema, v)
    }
  }

  #union(schema: TSchema, v: string): string {
    const options = schema.anyOf as TSchema[]
    if (!options.every((option) => option[Kind] === 'Literal'))
      throw new Error('record check: only unions of literals are supported')
    return `if (${options.map((option) => `${v} !== ${JSON.stringify(option.const)}`).join(' && ')}) return false`
  }

  #array(schema: TSchema, v: string): string {
    const index = this.#name('i')
    const item = this.#name('v')
    return [
      `if (!Array.isArray(${v})${bounds(schema, `${v}.length`, 'minItems', 'maxItems')}) return false`,
      `for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {`,
      `const ${item} = ${v}[${index}]`,
      this.check(schema.items as TSchema, item),
      '}',
    ].join('\n')
  }

  #object(schema: TSchema, v: string): string {
    const lines = [`if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) return false`]
    for (const [key, inner] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const property = this.#name('v')
      lines.push(`const ${property} = ${v}[${JSON.stringify(key)}]`)
      const check = this.check(inner, property)
      lines.push(inner[OptionalKind] === 'Optional' ? `if (${property} !== undefined) {\n${check}\n}` : check)
    }
    return lines.join('\n')
  }

  #record(schema: TSchema, v: string): string {
    const [[keyPattern, valueSchema]] = Object.entries(
      schema.patternProperties as Record<string, TSchema>,
    ) as [[string, TSchema]]
    const key = this.#name('k')
    const item = this.#name('v')
    const pattern = this.#pattern(keyPattern)
    const strict = schema.additionalProperties === false
    if (schema.additionalProperties !== undefined && !strict)
      throw new Error('record check: additionalProperties other than false is not supported')
    const lines = [
      `if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v}) || ${v} instanceof Date || ${v} instanceof Uint8Array) return false`,
    ]
    if (schema.maxProperties !== undefined)
      lines.push(
        `if (Object.getOwnPropertyNames(${v}).length > ${Number(schema.maxProperties)}) return false`,
      )
    lines.push(
      // Own enumerable keys, as Object.entries gives them (a parsed object inherits none).
      `for (const ${key} in ${v}) {`,
      `if (!Object.hasOwn(${v}, ${key})) continue`,
      `const ${item} = ${v}[${key}]`,
      strict ? `if (!${pattern}.test(${key})) return false` : `if (!${pattern}.test(${key})) continue`,
      this.check(valueSchema, item),
      '}',
    )
    return lines.join('\n')
  }
}

/** ` || value < min || value > max` for the bounds `schema` has. */
function bounds(schema: TSchema, v: string, min: string, max: string): string {
  const lower = schema[min] === undefined ? '' : ` || ${v} < ${Number(schema[min])}`
  const upper = schema[max] === undefined ? '' : ` || ${v} > ${Number(schema[max])}`
  return lower + upper
}
