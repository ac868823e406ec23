import type { TObject } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Numbers in a query string in plain decimal only. Fastify's Ajv coerces a query string with
 * JavaScript's number rules, so `limit=0x10` was served as 16, and `1e1`, `0b10` or ` 16` as
 * numbers too: a typo or a probe answered as if meant. Runs before validation (preValidation),
 * while the query still holds what the client wrote, for every integer property of `schema`.
 */
export function decimalQuery(schema: TObject) {
  const check = nonDecimalNumbers(schema)
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const problem = check(request.query)
    if (problem) return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: problem })
  }
}

/** The check itself, for a route that answers a refusal its own way (the landing page: HTML). */
export function nonDecimalNumbers(schema: TObject): (query: unknown) => string | undefined {
  const integers = Object.entries(schema.properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name)
  return (query) => {
    const written = (query ?? {}) as Record<string, unknown>
    for (const name of integers) {
      const value = written[name]
      const texts = Array.isArray(value) ? value : [value]
      if (texts.every((text) => text === undefined || (typeof text === 'string' && /^[0-9]+$/.test(text))))
        continue
      return `querystring/${name} must be a whole number in decimal digits`
    }
    return undefined
  }
}
