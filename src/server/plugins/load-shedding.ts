import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served even when the event loop is overloaded (liveness must not restart a busy pod). */
    alwaysServed?: boolean
  }
}

export interface LoadSheddingOptions {
  /** Mean event-loop delay (ms) over the last sample above which requests are shed; 0: never. */
  readonly maxEventLoopDelayMs: number
  /** Seconds in the `Retry-After` of a shed request. */
  readonly retryAfterSeconds: number
}

/** How often the delay is sampled, and the histogram's resolution (subtracted from its mean). */
const SAMPLE_INTERVAL_MS = 1000
const RESOLUTION_MS = 10

/**
 * Answers 503 with `Retry-After` while the event loop lags, so an overloaded exporter sheds
 * scrapes instead of falling over. What @fastify/under-pressure did for us, minus its sampler's
 * `process.memoryUsage()`: that opens /proc/self/stat, and with every descriptor taken by idle
 * connections it threw EMFILE from a timer and ended the process. Reading the loop delay needs no
 * descriptor, so nothing here can throw when they run out. Nothing is logged per shed request.
 */
export const loadShedding = fp<LoadSheddingOptions>(
  async (app: FastifyInstance, options) => {
    if (options.maxEventLoopDelayMs <= 0) return
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
    histogram.enable()
    let delayMs = 0
    const sampler = setInterval(() => {
      // No sample in a whole interval means the loop was blocked throughout it.
      delayMs = Number.isNaN(histogram.mean) ? Number.POSITIVE_INFINITY : histogram.mean / 1e6 - RESOLUTION_MS
      histogram.reset()
    }, SAMPLE_INTERVAL_MS)
    sampler.unref()
    app.addHook('onClose', async () => {
      clearInterval(sampler)
      histogram.disable()
    })
    app.addHook('onRequest', async (request, reply) => {
      if (delayMs <= options.maxEventLoopDelayMs || request.routeOptions.config.alwaysServed === true) return
      return reply
        .code(503)
        .header('Retry-After', String(options.retryAfterSeconds))
        .send({ statusCode: 503, error: 'Service Unavailable', message: 'overloaded; retry later' })
    })
  },
  { name: 'objstore-load-shedding', fastify: '5.x' },
)
