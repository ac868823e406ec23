import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv } from 'ajv'
import envSchemaLoader from 'env-schema'
import { envSchema } from '../../src/config/schema.js'
import { UNOPTIMISED_AJV } from '../../src/config/schema-helpers.js'

/**
 * The env schema is compiled at start without checking it against the JSON Schema meta-schema
 * (UNOPTIMISED_AJV: that check compiles the meta-schema first, a large share of the start's CPU);
 * it is checked here instead, with env-schema's own options and keyword.
 */

test('the env schema is a valid JSON schema', () => {
  const ajv = new Ajv({ allowUnionTypes: true, keywords: [envSchemaLoader.keywords.separator] })
  const valid = ajv.validateSchema(structuredClone(envSchema))
  assert.equal(valid, true, ajv.errorsText(ajv.errors))
})

test('start-up compiles the env schema without the meta-schema check, as env-schema otherwise does', () => {
  // A description must be a string: only the meta-schema check says so.
  const schema = () => ({ type: 'object', properties: { A: { type: 'number', description: 42 } } })
  assert.throws(() => envSchemaLoader({ schema: schema(), data: {}, env: false }), /schema is invalid/)
  assert.doesNotThrow(() => envSchemaLoader({ schema: schema(), data: {}, env: false, ajv: UNOPTIMISED_AJV }))
})

test('the options leave what the env schema accepts and refuses as it was', () => {
  const schema = {
    type: 'object',
    properties: {
      PORT: { type: 'integer', minimum: 1, default: 9786 },
      MODE: { type: 'string', enum: ['a', 'b'] },
    },
  }
  const load = (data: Record<string, unknown>) =>
    envSchemaLoader({ schema: structuredClone(schema), data, env: false, ajv: UNOPTIMISED_AJV })
  assert.deepEqual(load({ MODE: 'a' }), { PORT: 9786, MODE: 'a' })
  assert.deepEqual(load({ PORT: '80' }), { PORT: 80 })
  assert.throws(
    () => load({ PORT: 0, MODE: 'c' }),
    /env\/PORT must be >= 1, env\/MODE must be equal to one of the allowed values/,
  )
})
