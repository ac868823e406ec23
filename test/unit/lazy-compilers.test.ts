import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { lazySchemaCompilers } from '../../src/server/lazy-compilers.js'

/** A Fastify app as src/app.ts builds it: its `ajv` options and the lazy compilers. */
function app() {
  return Fastify({
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: lazySchemaCompilers,
  })
}

test('route schemas are compiled on first use, not while the app gets ready', async (t) => {
  const server = app()
  t.after(() => server.close())
  let validated = 0
  server.get(
    '/broken',
    // Not a schema Ajv compiles: eager compilation fails ready() with FST_ERR_SCH_VALIDATION_BUILD.
    { schema: { querystring: { type: 'object', properties: { a: { type: 'no-such-type' } } } } },
    async () => {
      validated++
      return 'unreachable'
    },
  )
  server.get('/fine', async () => 'ok')
  await server.ready()
  assert.equal((await server.inject('/fine')).statusCode, 200)
  // The broken schema is met on its route's first request, answered as a server error.
  assert.equal((await server.inject('/broken')).statusCode, 500)
  assert.equal(validated, 0)
})

test('validation, coercion, errors and serialisation are those of Fastify`s own compilers', async (t) => {
  const server = app()
  t.after(() => server.close())
  server.get(
    '/items',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1 } },
          additionalProperties: false,
        },
        response: {
          200: { type: 'object', properties: { limit: { type: 'integer' }, kind: { type: 'string' } } },
        },
      },
    },
    async (request) => ({ ...(request.query as object), kind: 'item', secret: 'not in the schema' }),
  )
  await server.ready()
  const served = await server.inject('/items?limit=5')
  assert.equal(served.statusCode, 200)
  // Coerced to a number by Ajv, and only the response schema's properties serialised.
  assert.equal(served.body, '{"limit":5,"kind":"item"}')
  for (let round = 0; round < 2; round++) {
    const refused = await server.inject('/items?limit=0')
    assert.equal(refused.statusCode, 400)
    assert.match(refused.json().message, /querystring\/limit must be >= 1/)
  }
  const unknown = await server.inject('/items?limt=5')
  assert.equal(unknown.statusCode, 400)
  assert.match(unknown.json().message, /must NOT have additional properties/)
  assert.equal((await server.inject('/items?limit=7')).body, '{"limit":7,"kind":"item"}')
})
