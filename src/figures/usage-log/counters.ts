/*
 * How the usage log figure's counters (index.ts) carry on from one scan to the next.
 *
 * RGW keeps the log as one entry per bucket owner, bucket and hour, each holding that hour's sums,
 * for as long as nobody trims it (`radosgw-admin usage trim`, or the admin API's DELETE). A sum
 * over the log therefore goes down when it is trimmed, and a Prometheus counter must not. So the
 * counters are the exporter's own: the first time a bucket is seen they start at the sum over
 * what the log holds, and from then on each scan adds only what grew, comparing the newest hours
 * with the figures kept from the previous scan (`recent`). Hours older than those kept are closed
 * and ignored, so a trim (which removes the oldest hours) costs nothing and a counter never goes
 * down; a kept hour whose figures went down was trimmed and written again, and counts anew. What
 * RGW logged and trimmed between two scans is not seen. The record is in the state file, so a
 * restart carries on from it; without one, counters start again from the log's sum (a reset to
 * Prometheus, as any restarted exporter's counters).
 */
import {
  USAGE_LOG_MAX_CATEGORIES,
  USAGE_LOG_RECENT_HOURS,
  type UsageLog,
  type UsageLogFigures,
} from './index.js'

/** One bucket's part of the log as RGW answered it: per hour (epoch), per category. */
export type UsageLogHours = ReadonlyMap<number, ReadonlyMap<string, UsageLogFigures>>

const FIELDS = ['ops', 'successfulOps', 'bytesSent', 'bytesReceived'] as const
const ZERO: UsageLogFigures = { ops: 0, successfulOps: 0, bytesSent: 0, bytesReceived: 0 }

/**
 * The counters after this scan: `previous` (the bucket's last record, or undefined the first time)
 * plus what grew in `hours` since. A kept hour whose figures went down was trimmed and written
 * again in between: its figures now are all new.
 */
export function advanceUsageLog(previous: UsageLog | undefined, hours: UsageLogHours): UsageLog {
  const totals: Record<string, UsageLogFigures> = { ...previous?.totals }
  const kept = new Map((previous?.recent ?? []).map((hour) => [hour.epoch, hour.categories]))
  const oldestKept = Math.min(...kept.keys())
  for (const [epoch, categories] of hours) {
    // A closed hour older than those kept: counted before (or trimmed since).
    if (previous && kept.size > 0 && epoch < oldestKept) continue
    const before = kept.get(epoch) ?? {}
    for (const [category, figures] of categories) {
      // A figure lower than before: the hour was trimmed and filled again since, so all of it is new.
      const earlier = before[category] ?? ZERO
      const restarted = FIELDS.some((field) => figures[field] < earlier[field])
      const total = { ...(totals[category] ?? ZERO) }
      for (const field of FIELDS) total[field] += restarted ? figures[field] : figures[field] - earlier[field]
      totals[category] = total
    }
  }
  const newest = [...hours.keys()].sort((a, b) => a - b).slice(-USAGE_LOG_RECENT_HOURS)
  return {
    totals: bounded(totals),
    recent:
      newest.length > 0
        ? newest.map((epoch) => ({
            epoch,
            categories: Object.fromEntries(hours.get(epoch) ?? new Map()),
          }))
        : [...(previous?.recent ?? [])],
  }
}

/**
 * Where the next read of the log may start (epoch seconds, an hour's start), from the buckets'
 * previous counters; undefined when none has any (the first read: the whole log seeds them).
 * RGW writes an entry into the hour it is in, so whatever grew since the previous scan lies in
 * hours at or after the newest hour that scan saw; one hour before it is kept as a margin for the
 * two clocks and for entries RGW flushes late. Older hours are closed (advanceUsageLog ignores
 * them), and reading them again every scan would make the answer grow with the log's age until
 * it passes RGW_MAX_RESPONSE_BYTES. A bucket first seen in such a read starts its counters at what
 * the read holds.
 */
export function usageLogReadStart(previous: Iterable<UsageLog | undefined>): number | undefined {
  let newest: number | undefined
  for (const log of previous)
    for (const hour of log?.recent ?? []) if (newest === undefined || hour.epoch > newest) newest = hour.epoch
  if (newest === undefined) return undefined
  return Math.max(0, Math.floor(newest / HOUR_SECONDS) * HOUR_SECONDS - HOUR_SECONDS)
}

const HOUR_SECONDS = 3600

/** At most USAGE_LOG_MAX_CATEGORIES categories (by name), so the record stays within its schema. */
function bounded(totals: Record<string, UsageLogFigures>): Record<string, UsageLogFigures> {
  const names = Object.keys(totals).sort()
  if (names.length <= USAGE_LOG_MAX_CATEGORIES) return totals
  return Object.fromEntries(
    names.slice(0, USAGE_LOG_MAX_CATEGORIES).map((name) => [name, totals[name] as UsageLogFigures]),
  )
}
