import type { PriceTable } from '../config/env/prices.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { Collector } from './types.js'

/**
 * The operator's price table (STORAGE_PRICES, REQUEST_PRICES) as gauges, as
 * grafana/cloudcost-exporter exports its rates, so the cost recording rules of config/alerts.yml
 * multiply bytes and requests by them in PromQL. Only the prices set: none is assumed.
 */
export const priceFamilies = describe('prices', {
  storage_price_per_gibibyte_month: family(
    'gauge',
    ['storage_class'],
    'Storage price per GiB-month of the storage class, in the currency of STORAGE_PRICES, as the operator set it; absent for a class without a price.',
  ),
  request_price_per_thousand: family(
    'gauge',
    ['request_class'],
    'Price per 1,000 requests of the class (list: List* operations; other: every other request), in the currency of REQUEST_PRICES, as the operator set it.',
  ),
})

type Families = typeof priceFamilies

/** True when the operator set at least one price: the collector runs only then. */
export function hasPrices(table: PriceTable): boolean {
  return table.storage.size > 0 || table.requests.size > 0
}

/** The prices, fixed at start-up; no I/O. */
export function createPricesCollector(table: PriceTable): Collector<Families> {
  return {
    name: 'prices',
    families: priceFamilies,
    collect(out: MetricSet<Families>) {
      for (const [storageClass, price] of table.storage) {
        out.set('storage_price_per_gibibyte_month', { storage_class: storageClass }, price)
      }
      for (const [requestClass, price] of table.requests) {
        out.set('request_price_per_thousand', { request_class: requestClass }, price)
      }
    },
  }
}
