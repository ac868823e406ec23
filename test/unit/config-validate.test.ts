import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv } from 'ajv'
import { envSchema } from '../../src/config/schema.js'
import type { PropertySchema } from '../../src/config/schema-helpers.js'
import { validateEnv } from '../../src/config/validate-env.js'

const properties = envSchema.properties as Record<string, PropertySchema>

/** Values near each keyword's edges, as load.ts hands them over (numbers already read). */
function candidates(schema: PropertySchema): (string | number)[] {
  switch (schema.type) {
    case 'boolean':
      return ['true', 'false', 'TRUE', '1', 'yes', '']
    case 'integer':
    case 'number': {
      const edges = [schema.minimum, schema.maximum, schema.exclusiveMinimum].filter(
        (edge): edge is number => edge !== undefined,
      )
      return [
        0,
        1,
        -1,
        0.5,
        1e12,
        ...edges.flatMap((edge) => [edge - 1, edge - 0.5, edge, edge + 0.5, edge + 1]),
      ]
    }
    default:
      return [
        '',
        'x',
        'a'.repeat(300),
        'é'.repeat(schema.maxLength ?? 2),
        '/metrics',
        'http://127.0.0.1:9000',
        '0/2',
        '1/2',
        'name:tag',
        ...(schema.enum ?? []),
        ...(schema.default === undefined ? [] : [String(schema.default)]),
      ]
  }
}

test('validateEnv accepts and refuses what Ajv with env-schema options did, variable by variable', () => {
  // The options env-schema gave Ajv, which validated the configuration before validateEnv.
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, allowUnionTypes: true })
  let compared = 0
  for (const [name, schema] of Object.entries(properties)) {
    const validate = ajv.compile({ type: 'object', properties: { value: structuredClone(schema) } })
    for (const value of candidates(schema)) {
      const ours = validateEnv({ [name]: schema }, { [name]: value })
      const holder: Record<string, unknown> = { value }
      const theirs = validate(holder)
      assert.equal(ours.refused.length === 0, theirs, `${name}=${JSON.stringify(value)}`)
      if (theirs) assert.deepEqual(ours.values[name], holder.value, `${name}=${JSON.stringify(value)}: value`)
      compared++
    }
  }
  assert.ok(compared > 300, `${compared} comparisons`)
})

test('validateEnv applies defaults, and names a variable with neither value nor default', () => {
  const { values, refused } = validateEnv(properties, {})
  assert.deepEqual(refused, [])
  for (const [name, schema] of Object.entries(properties)) assert.equal(values[name], schema.default, name)
  const noDefault = { X: { type: 'string', description: 'x' } as PropertySchema }
  assert.deepEqual(validateEnv(noDefault, {}).refused, ['X'])
})

test('a keyword validateEnv does not check is refused loudly, not ignored', () => {
  const withFormat = { X: { type: 'string', format: 'uri', default: '' } as unknown as PropertySchema }
  assert.throws(() => validateEnv(withFormat, { X: 'a' }), /X: schema keyword format \(type string\)/)
  const numberEnum = { N: { type: 'number', enum: [1], default: 1 } as unknown as PropertySchema }
  assert.throws(() => validateEnv(numberEnum, { N: 1 }), /N: schema keyword enum/)
})
