import AjvCompiler from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

/**
 * Fastify's own schema compilers (the ones it uses by default: @fastify/ajv-compiler and
 * @fastify/fast-json-stringify-compiler, with the server's `ajv` and `serializerOpts` options),
 * each route's validator and serialiser compiled on its first use instead of at start. Fastify
 * compiles every route schema while it gets ready: the JSON API's (TypeBox, with examples) cost
 * ~90 ms of a start measured at ~460 ms of CPU, for routes a Prometheus server never asks.
 * Passed as Fastify's `schemaController.compilersFactory` option.
 *
 * What a route answers does not change: the same compiler, the same schema, the same options.
 * A schema that does not compile fails on the route's first request (a 500) instead of at start;
 * the API's tests ask every route.
 */

type ValidatorFactory = ReturnType<typeof AjvCompiler>
type RouteDefinition = Parameters<ReturnType<ValidatorFactory>>[0]
type Validate = ReturnType<ReturnType<ValidatorFactory>> & { schemaEnv?: unknown }

/** A validator that compiles on its first call; Fastify reads `errors` and `schemaEnv` off it. */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined
  const get = () => {
    compiled ??= compile()
    return compiled
  }
  const validate = ((data: unknown, context?: unknown) =>
    (get() as (data: unknown, context?: unknown) => unknown)(data, context)) as Validate
  Object.defineProperty(validate, 'errors', { get: () => compiled?.errors ?? null })
  // Fastify hands Ajv the request as the parent of the data when the validator has an
  // environment (so a root value can be coerced): asking for it compiles, as the call would.
  Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv })
  return validate
}

const buildValidator: ValidatorFactory = (externalSchemas, ajvOptions) => {
  let factory: ReturnType<ValidatorFactory> | undefined
  const compiler = () => {
    factory ??= AjvCompiler()(externalSchemas, ajvOptions)
    return factory
  }
  return (route: RouteDefinition) => lazyValidator(() => compiler()(route) as Validate)
}

type SerializerFactory = ReturnType<typeof SerializerSelector>
type Serialize = (document: unknown) => string

const buildSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  let factory: ReturnType<SerializerFactory> | undefined
  const compiler = () => {
    factory ??= SerializerSelector()(externalSchemas, serializerOptions)
    return factory
  }
  return (route) => {
    let serialize: Serialize | undefined
    return (document: unknown) => {
      serialize ??= compiler()(route) as Serialize
      return serialize(document)
    }
  }
}

export const lazySchemaCompilers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator, buildSerializer },
}
