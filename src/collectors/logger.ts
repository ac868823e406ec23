import type { DeliveryStats } from '../logging/targets/types.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { Collector } from './types.js'

/** The HTTP log target's delivery counters. */
export const loggerFamilies = describe('logger', {
  logger_http_sent_total: family('counter', [], 'Log entries delivered to the HTTP log target.'),
  logger_http_failed_total: family(
    'counter',
    [],
    'Log entries in batches the HTTP log receiver rejected for good (4xx other than 408 and 429); not retried.',
  ),
  logger_http_dropped_total: family(
    'counter',
    [],
    'Log entries dropped because the HTTP log target queue was full (oldest first), or still queued at the shutdown deadline.',
  ),
  logger_http_queue_entries: family(
    'gauge',
    [],
    'Log entries waiting for the HTTP log target, the batch being sent included.',
  ),
  logger_http_online: family(
    'gauge',
    [],
    'Whether the last delivery attempt to the HTTP log target succeeded (1) or not (0); 1 before the first attempt.',
  ),
})

/** Anything that can tell how its log deliveries went; the HTTP log target in production. */
export interface LogDeliverySource {
  stats(): DeliveryStats
}

/** The HTTP log target's counters, read (no I/O) at scrape time. */
export function createLoggerCollector(source: LogDeliverySource): Collector<typeof loggerFamilies> {
  return {
    name: 'logger',
    families: loggerFamilies,
    collect(out: MetricSet<typeof loggerFamilies>) {
      const stats = source.stats()
      out.set('logger_http_sent_total', {}, stats.sent)
      out.set('logger_http_failed_total', {}, stats.failed)
      out.set('logger_http_dropped_total', {}, stats.dropped)
      out.set('logger_http_queue_entries', {}, stats.queued)
      out.set('logger_http_online', {}, stats.online ? 1 : 0)
    },
  }
}
