/*
 * Per-user usage and quotas (rgw with RGW_USER_METRICS), declared beside the code that writes them
 * from the snapshot's per-user part (src/record/user-usage.ts, read by
 * src/sources/rgw/users.ts). Not per bucket: BUCKET_METRICS and BUCKETS_TOP_N do not
 * apply; RGW_USERS_MAX bounds the series. Written with the snapshot totals by usage-series.ts.
 */
import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { UserScan } from '../sources/types.js'

export const userFamilies = describe('usage', {
  user_usage_total_bytes: family(
    'gauge',
    ['uid', 'tenant'],
    "Bytes the user's objects hold (rgw: the user's stats, size, what user quotas are enforced against; RGW refreshes them from its buckets' counters on its own schedule, so they may lag bucket_usage_total_bytes). tenant is empty for the default tenant.",
  ),
  user_usage_objects: family(
    'gauge',
    ['uid', 'tenant'],
    "Objects the user's buckets hold (rgw: the user's stats, num_objects; may lag as user_usage_total_bytes).",
  ),
  user_quota_max_bytes: family(
    'gauge',
    ['uid', 'tenant'],
    "The user's quota in bytes (rgw: user_quota.max_size, as RGW rounds it up to whole KiB), only while the user quota is enabled with a size limit.",
  ),
  user_quota_max_objects: family(
    'gauge',
    ['uid', 'tenant'],
    "The user's quota in objects (rgw: user_quota.max_objects), only while the user quota is enabled with an object limit.",
  ),
  users_omitted: family(
    'gauge',
    [],
    "Users of the store's list not measured in the last scan, past RGW_USERS_MAX (counted for up to some 100,000 more).",
  ),
})

/** Each user's series, and how many were left out. */
export function writeUsers(out: MetricSink<typeof userFamilies>, scan: UserScan): void {
  for (const user of scan.users) {
    const labels = { uid: user.uid, tenant: user.tenant }
    out.set('user_usage_total_bytes', labels, user.bytes)
    out.set('user_usage_objects', labels, user.objects)
    if (user.quotaMaxBytes !== undefined) out.set('user_quota_max_bytes', labels, user.quotaMaxBytes)
    if (user.quotaMaxObjects !== undefined) out.set('user_quota_max_objects', labels, user.quotaMaxObjects)
  }
  out.set('users_omitted', {}, scan.omitted)
}
