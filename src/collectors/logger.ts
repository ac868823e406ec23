import type { DeliveryStats } from '../logging/targets/types.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { Collector } from './types.js'

/** Anything that can tell how its log deliveries went; the HTTP log target in production. */
export interface LogDeliverySource {
  stats(): DeliveryStats
}

/** The HTTP log target's counters, read (no I/O) at scrape time. */
export function createLoggerCollector(source: LogDeliverySource): Collector {
  return {
    name: 'logger',
    collect(out: MetricSet) {
      const stats = source.stats()
      out.set('loggerHttpSentTotal', {}, stats.sent)
      out.set('loggerHttpFailedTotal', {}, stats.failed)
      out.set('loggerHttpDroppedTotal', {}, stats.dropped)
      out.set('loggerHttpQueueEntries', {}, stats.queued)
      out.set('loggerHttpOnline', {}, stats.online ? 1 : 0)
    },
  }
}
