import { duration, type RuleParameters } from './parameters.js'
import { NS, type RuleGroup } from './types.js'

const GiB = 1024 ** 3

/** The names the cost rules record. */
export function costRecords(parameters: RuleParameters) {
  return {
    billed: `bucket_storage_class:${NS}_bucket_billed_bytes:max`,
    storage: `bucket_storage_class:${NS}_bucket_storage_cost_per_month:sum`,
    reclaimable: `bucket:${NS}_bucket_reclaimable_cost_per_month:sum`,
    scans: `job_operation:${NS}_scan_request_cost_per_month:rate${duration(parameters.cost.requestRateWindowSeconds)}`,
  }
}

/** Labels an expression's series with `label="value"`. */
function labelled(expr: string, label: string, value: string): string {
  return `label_replace(${expr}, "${label}", "${value}", "__name__", ".*")`
}

/**
 * Cost, from the operator's price table (STORAGE_PRICES, REQUEST_PRICES as price gauges): what
 * each bucket stores as the store bills it, by storage class and part (current bytes, noncurrent
 * versions, parts of incomplete multipart uploads, as Storage Lens's StorageBytes counts them),
 * times the class's price; what lifecycle rules could save; what the scans' requests cost. A
 * class without a price has no cost series: nothing is priced by guess.
 */
export function costGroup(parameters: RuleParameters): RuleGroup {
  const names = costRecords(parameters)
  const { defaultStorageClass: standard, secondsPerMonth, requestRateWindowSeconds } = parameters.cost
  const price = `max by (job, storage_class) (${NS}_storage_price_per_gibibyte_month)`
  const unlisted = (expr: string, part: string) =>
    labelled(labelled(expr, 'storage_class', standard), 'part', part)
  const requests = `${NS}_s3_requests_total`
  const rate = (selector: string) => `rate(${requests}{${selector}}[${duration(requestRateWindowSeconds)}])`
  return {
    name: 'objstore-cost',
    rules: [
      {
        record: names.billed,
        expr: [
          'max by (job, bucket, storage_class, part) (',
          `  ${labelled(`${NS}_bucket_storage_class_bytes`, 'part', 'current')}`,
          '  or',
          `  ${unlisted(`${NS}_bucket_usage_total_bytes unless on (job, instance, bucket) ${NS}_bucket_storage_class_bytes`, 'current')}`,
          '  or',
          `  ${unlisted(`${NS}_bucket_noncurrent_bytes`, 'noncurrent')}`,
          '  or',
          `  ${unlisted(`${NS}_bucket_multipart_uploads_incomplete_bytes`, 'incomplete_uploads')}`,
          ')',
          '',
        ].join('\n'),
      },
      {
        record: names.storage,
        expr: `${names.billed} / ${GiB}\n* on (job, storage_class) group_left ()\n${price}\n`,
      },
      {
        record: names.reclaimable,
        expr: [
          `max by (job, bucket) (bucket:${NS}_reclaimable_bytes:sum) / ${GiB}`,
          '* on (job) group_left ()',
          `max by (job) (${NS}_storage_price_per_gibibyte_month{storage_class="${standard}"})`,
          '',
        ].join('\n'),
      },
      {
        record: names.scans,
        expr: [
          'sum by (job, operation, request_class) (',
          `  ${labelled(rate('operation=~"List.*"'), 'request_class', 'list')}`,
          '  or',
          `  ${labelled(rate('operation!~"List.*"'), 'request_class', 'other')}`,
          ')',
          '* on (job, request_class) group_left ()',
          `max by (job, request_class) (${NS}_request_price_per_thousand)`,
          `/ 1000 * ${secondsPerMonth}`,
          '',
        ].join('\n'),
      },
    ],
  }
}
