import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { RoundProgressView } from '../scanning/round-progress.js'
import type { BucketRecord, UsageSnapshot } from '../snapshot/snapshot.js'
import { figuresOf } from '../snapshot/stored-records.js'

/** Scanner health: the source's state and each bucket's last scan, written with the usage families. */
export const scanHealthFamilies = describe('scanner', {
  bucket_scan_success: family(
    'gauge',
    ['bucket'],
    'Whether the last scan of the bucket succeeded (1) or failed (0); figures are from the last success.',
    'scan',
  ),
  bucket_scan_duration_seconds: family(
    'gauge',
    ['bucket'],
    'Duration of the last scan of the bucket, retries included.',
    'scan',
  ),
  bucket_scan_last_success_timestamp_seconds: family(
    'gauge',
    ['bucket'],
    'When the bucket was last scanned successfully, seconds since the epoch.',
    'scan',
  ),
  bucket_scan_unreadable_entries: family(
    'gauge',
    ['bucket'],
    'Files and folders below the bucket that its last successful scan could not read (fs: path over PATH_MAX, I/O error, permission); the figures leave them out.',
    'scan',
  ),
  bucket_ranges: family(
    'gauge',
    ['bucket'],
    'Key ranges the bucket keeps a subtotal for (issue 25: buckets of at least SCAN_SUBTOTALS_MIN_OBJECTS objects, SCAN_FULL_EVERY above 1); absent for a bucket listed whole every round.',
    'scan',
  ),
  bucket_ranges_dirty: family(
    'gauge',
    ['bucket'],
    'Key ranges of the bucket marked dirty when its last round ended (a change event named a key in them, or their listing failed): listed again next round.',
    'scan',
  ),
  bucket_ranges_relisted_ratio: family(
    'gauge',
    ['bucket'],
    "Share of the bucket's entries (objects, or versions and delete markers) its last round listed again; the other ranges kept their subtotals.",
    'scan',
  ),
  bucket_ranges_oldest_listed_timestamp_seconds: family(
    'gauge',
    ['bucket'],
    "When the bucket's stalest key range was last listed, seconds since the epoch: the time its figures are as of (time() minus it: the age of its oldest subtotal).",
    'scan',
  ),
  usage_last_scan_duration_seconds: family(
    'gauge',
    [],
    'How long the last completed scan round took, listing and every selected bucket (SCAN_INTERVAL_SECONDS apart).',
  ),
  usage_last_scan_started_timestamp_seconds: family(
    'gauge',
    [],
    'When the last completed scan round started, seconds since the epoch.',
  ),
  usage_last_scan_completed_timestamp_seconds: family(
    'gauge',
    [],
    'When the last completed scan round ended and its figures were published, seconds since the epoch.',
  ),
  source_up: family(
    'gauge',
    ['source'],
    'Whether the usage source answered the last scan (1: listed its buckets and measured at least one, if any) or not (0).',
  ),
  scan_round_objects_listed: family(
    'gauge',
    ['source'],
    'Current objects the running scan round has listed so far: the buckets it measured (their figures) and what the listings of those in progress have folded (s3: each page; fs: every 65,536 files of a walk; rgw: a bucket at a time). 0 while no round runs.',
  ),
  scan_round_bytes_listed: family(
    'gauge',
    ['source'],
    'Bytes of the objects scan_round_objects_listed counts. 0 while no round runs.',
  ),
})

type Sink = MetricSink<typeof scanHealthFamilies>

/** Whether the source answered the snapshot's scan, and when that scan ran. */
export function writeSourceUp(out: Sink, snapshot: UsageSnapshot): void {
  out.set('source_up', { source: snapshot.sourceName }, snapshot.sourceUp ? 1 : 0)
  out.set('usage_last_scan_completed_timestamp_seconds', {}, snapshot.completedAtMs / 1000)
  // A state file of an earlier version has no start: duration and start are then unknown.
  if (snapshot.startedAtMs === undefined) return
  out.set('usage_last_scan_started_timestamp_seconds', {}, snapshot.startedAtMs / 1000)
  out.set(
    'usage_last_scan_duration_seconds',
    {},
    Math.max(0, snapshot.completedAtMs - snapshot.startedAtMs) / 1000,
  )
}

/**
 * The running round's objects and bytes so far, written every scrape (not with the snapshot): 0
 * between rounds, so the series is always there and a graph of it is a sawtooth, one tooth a round.
 */
export function writeRoundProgress(out: Sink, source: string, progress: RoundProgressView | undefined): void {
  out.set('scan_round_objects_listed', { source }, progress?.objects ?? 0)
  out.set('scan_round_bytes_listed', { source }, progress?.bytes ?? 0)
}

/** One bucket's last scan: success, duration, last success, its ranges' summary and unreadable entries. */
export function writeScanHealth(out: Sink, record: BucketRecord, usage = figuresOf(record)): void {
  const bucket = { bucket: record.name }
  out.set('bucket_scan_success', bucket, record.scanSuccess ? 1 : 0)
  out.set('bucket_scan_duration_seconds', bucket, record.scanDurationSeconds)
  if (record.lastSuccessSeconds !== undefined) {
    out.set('bucket_scan_last_success_timestamp_seconds', bucket, record.lastSuccessSeconds)
  }
  if (record.ranges !== undefined) {
    out.set('bucket_ranges', bucket, record.ranges.ranges)
    out.set('bucket_ranges_dirty', bucket, record.ranges.dirty)
    out.set('bucket_ranges_relisted_ratio', bucket, record.ranges.relistedRatio)
    out.set('bucket_ranges_oldest_listed_timestamp_seconds', bucket, record.ranges.oldestListedSeconds)
  }
  if (usage?.unreadableEntries !== undefined) {
    out.set('bucket_scan_unreadable_entries', bucket, usage.unreadableEntries)
  }
}
