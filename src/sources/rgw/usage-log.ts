/**
 * RGW's usage log through the admin API (`GET /admin/usage?show-entries=true&show-summary=false`,
 * admin cap `usage=read`): per bucket owner, bucket and hour, the ops, successful ops and bytes
 * sent and received per category. Filled only while RGW runs with `rgw_enable_usage_log = true`;
 * RGW answers an empty log otherwise, so a bucket with no entry has no counters (never zeros).
 * How the hours become counters that never go down: src/figures/usage-log/counters.ts.
 */
import { boundedValue } from '../../figures/label-values.js'
import type { UsageLogHours } from '../../figures/usage-log/counters.js'
import {
  USAGE_LOG_CATEGORY,
  USAGE_LOG_MAX_CATEGORIES,
  type UsageLogFigures,
} from '../../figures/usage-log/index.js'
import { bucketName } from './bucket-name.js'
import { count, isObject, RgwAdminResponseError } from './stats.js'

/** Per bucket, as the rgw source labels it (`tenant:bucket` in a tenant), its hours. */
export type RgwUsageLog = ReadonlyMap<string, UsageLogHours>

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new RgwAdminResponseError(`${where}: expected an array`)
  return value
}

/**
 * The whole answer, per bucket and hour. Entries not on a bucket (`list_buckets`: bucket "") are
 * left out, as are category names that are not RGW operation names; the figures of one bucket
 * owner's several entries for the same hour (a bucket linked to another user) are added.
 */
export function parseUsageLog(value: unknown): RgwUsageLog {
  if (!isObject(value)) throw new RgwAdminResponseError('usage: expected an object')
  const log = new Map<string, Map<number, Map<string, UsageLogFigures>>>()
  // RGW leaves `entries` out when show-entries was not sent.
  for (const [u, user] of array(value.entries ?? [], 'usage.entries').entries()) {
    if (!isObject(user)) throw new RgwAdminResponseError(`usage.entries[${u}]: expected an object`)
    for (const [b, entry] of array(user.buckets ?? [], `usage.entries[${u}].buckets`).entries()) {
      const where = `usage.entries[${u}].buckets[${b}]`
      if (!isObject(entry)) throw new RgwAdminResponseError(`${where}: expected an object`)
      if (typeof entry.bucket !== 'string' || entry.bucket === '') continue
      const owner =
        typeof entry.owner === 'string' ? entry.owner : typeof user.user === 'string' ? user.user : ''
      // The owner is `tenant$uid` in a tenant; the entry names the bucket without its tenant.
      const tenant = owner.includes('$') ? owner.slice(0, owner.indexOf('$')) : ''
      const bucket = bucketName({ bucket: boundedValue(entry.bucket), tenant: boundedValue(tenant) })
      const epoch = count(entry.epoch, `${where}.epoch`)
      const hours = log.get(bucket) ?? new Map<number, Map<string, UsageLogFigures>>()
      log.set(bucket, hours)
      const categories = hours.get(epoch) ?? new Map<string, UsageLogFigures>()
      hours.set(epoch, categories)
      for (const [c, figures] of array(entry.categories ?? [], `${where}.categories`).entries()) {
        const at = `${where}.categories[${c}]`
        if (!isObject(figures)) throw new RgwAdminResponseError(`${at}: expected an object`)
        const category = figures.category
        if (typeof category !== 'string' || !USAGE_LOG_CATEGORY.test(category)) continue
        if (!categories.has(category) && categories.size >= USAGE_LOG_MAX_CATEGORIES) continue
        const before = categories.get(category)
        const read = {
          ops: count(figures.ops, `${at}.ops`),
          successfulOps: count(figures.successful_ops, `${at}.successful_ops`),
          bytesSent: count(figures.bytes_sent, `${at}.bytes_sent`),
          bytesReceived: count(figures.bytes_received, `${at}.bytes_received`),
        }
        categories.set(
          category,
          before
            ? {
                ops: before.ops + read.ops,
                successfulOps: before.successfulOps + read.successfulOps,
                bytesSent: before.bytesSent + read.bytesSent,
                bytesReceived: before.bytesReceived + read.bytesReceived,
              }
            : read,
        )
      }
    }
  }
  return log
}
