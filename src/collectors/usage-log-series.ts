/*
 * Request counters per bucket and category from Ceph RGW's usage log (the opt-in BUCKET_METRICS
 * group `usage_log`), declared beside the code that writes them from the bucket's record
 * (BucketUsage.usageLog: src/record/usage-log.ts says why they never go down when RGW trims its
 * log). Written with the other per-bucket families by usage-series.ts.
 */
import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { BucketUsage } from '../sources/types.js'

const WHERE =
  "rgw with rgw_enable_usage_log and the admin cap usage=read; category: RGW's operation (put_obj, get_obj, list_bucket...). Starts at the sum of what the log holds and then grows by what RGW adds, so a trim of the log never lowers it"

export const usageLogFamilies = describe('usage', {
  bucket_usage_log_ops_total: family(
    'counter',
    ['bucket', 'category'],
    `Requests on the bucket per category, from RGW's usage log (${WHERE}).`,
    'usage_log',
  ),
  bucket_usage_log_successful_ops_total: family(
    'counter',
    ['bucket', 'category'],
    `Requests on the bucket per category that succeeded, from RGW's usage log (${WHERE}).`,
    'usage_log',
  ),
  bucket_usage_log_sent_bytes_total: family(
    'counter',
    ['bucket', 'category'],
    `Bytes RGW sent to clients for the bucket per category, from its usage log (${WHERE}).`,
    'usage_log',
  ),
  bucket_usage_log_received_bytes_total: family(
    'counter',
    ['bucket', 'category'],
    `Bytes RGW received from clients for the bucket per category, from its usage log (${WHERE}).`,
    'usage_log',
  ),
})

/** A bucket's counters, per category in name order; nothing when the log gave it none. */
export function writeUsageLog(
  out: MetricSink<typeof usageLogFamilies>,
  bucket: string,
  usage: BucketUsage,
): void {
  const totals = usage.usageLog?.totals
  if (!totals) return
  for (const category of Object.keys(totals).sort()) {
    const figures = totals[category]
    if (!figures) continue
    const labels = { bucket, category }
    out.set('bucket_usage_log_ops_total', labels, figures.ops)
    out.set('bucket_usage_log_successful_ops_total', labels, figures.successfulOps)
    out.set('bucket_usage_log_sent_bytes_total', labels, figures.bytesSent)
    out.set('bucket_usage_log_received_bytes_total', labels, figures.bytesReceived)
  }
}
