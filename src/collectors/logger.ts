import type { TargetDelivery } from '../logging/create-logger.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { Collector } from './types.js'

/**
 * The delivery counters of the log targets that deliver asynchronously (a target's `stats()`),
 * one family per counter and a series per target, `target` its LOG_TARGETS name: a new target
 * with counters adds series, not families, and nothing here names one.
 */
export const loggerFamilies = describe('logger', {
  logger_sent_total: family('counter', ['target'], 'Log entries the log target delivered.'),
  logger_failed_total: family(
    'counter',
    ['target'],
    'Log entries in batches the log receiver rejected for good (HTTP: 4xx other than 408 and 429); not retried.',
  ),
  logger_dropped_total: family(
    'counter',
    ['target'],
    "Log entries dropped because the log target's queue was full (oldest first), or still queued at the shutdown deadline.",
  ),
  logger_queue_entries: family(
    'gauge',
    ['target'],
    'Log entries waiting for the log target, the batch being sent included.',
  ),
  logger_online: family(
    'gauge',
    ['target'],
    'Whether the last delivery attempt of the log target succeeded (1) or not (0); 1 before the first attempt.',
  ),
})

/** The targets' counters, read (no I/O) at scrape time. */
export function createLoggerCollector(
  deliveries: readonly TargetDelivery[],
): Collector<typeof loggerFamilies> {
  return {
    name: 'logger',
    families: loggerFamilies,
    collect(out: MetricSet<typeof loggerFamilies>) {
      for (const delivery of deliveries) {
        const stats = delivery.stats()
        const labels = { target: delivery.target }
        out.set('logger_sent_total', labels, stats.sent)
        out.set('logger_failed_total', labels, stats.failed)
        out.set('logger_dropped_total', labels, stats.dropped)
        out.set('logger_queue_entries', labels, stats.queued)
        out.set('logger_online', labels, stats.online ? 1 : 0)
      }
    },
  }
}
