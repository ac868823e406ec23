/*
 * The usage collector's families and the code that writes them from a snapshot: used per scrape
 * (the snapshot's age) and per snapshot (everything else, rendered once: usage-render.ts and its
 * worker).
 */

import { figureFamilies, inFigurePlaces, writeFigures } from '../figures/assemble.js'
import { forEachMinioSizeRange } from '../figures/sizes/ranges.js'
import { MINIO_VERSION_RANGES } from '../figures/versions/ranges.js'
import { describe, family, unionOf } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { BucketRecord, UsageSnapshot } from '../snapshot/snapshot.js'
import { figuresOf } from '../snapshot/stored-records.js'
import type { BucketUsage } from '../sources/types.js'
import { budgetFamilies } from './budget-families.js'
import { scanHealthFamilies, writeScanHealth, writeSourceUp } from './scan-health.js'
import { userFamilies, writeUsers } from './user-series.js'

/** Bucket usage (MinIO v2 names), from the background scanner's last snapshot. */
const usageFamilies = describe('usage', {
  cluster_buckets: family('gauge', [], 'Buckets measured in the last usage snapshot.', {
    minio: 'cluster_bucket_total',
  }),
  cluster_usage_total_bytes: family(
    'gauge',
    [],
    "Bytes of current objects, summed over measured buckets (BUCKETS_SOURCE=rgw: RGW's rgw.main counters, see bucket_usage_total_bytes).",
  ),
  cluster_usage_objects: family(
    'gauge',
    [],
    "Current objects, summed over measured buckets (BUCKETS_SOURCE=rgw: RGW's rgw.main counters, see bucket_usage_objects).",
    { minio: 'cluster_usage_object_total' },
  ),
  cluster_usage_versions: family('gauge', [], 'Object versions, summed over buckets scanned with versions.', {
    minio: 'cluster_usage_version_total',
  }),
  cluster_usage_deletemarkers: family(
    'gauge',
    [],
    'Delete markers, summed over buckets scanned with versions.',
    { minio: 'cluster_usage_deletemarker_total' },
  ),
  cluster_objects_size_distribution: family(
    'gauge',
    ['range'],
    'Current objects per MinIO size range, summed over measured buckets whose source gives sizes (fs, s3); BETWEEN_1024B_AND_1_MB aggregates four others, as in MinIO.',
  ),
  cluster_objects_version_distribution: family(
    'gauge',
    ['range'],
    'Keys per MinIO version-count range, summed over buckets scanned with versions (SCAN_VERSIONS).',
  ),
  bucket_usage_total_bytes: family(
    'gauge',
    ['bucket'],
    "Bytes of current objects in the bucket. BUCKETS_SOURCE=rgw: RGW's rgw.main size counter, which also counts noncurrent versions and the parts of incomplete multipart uploads.",
    'usage',
  ),
  bucket_usage_objects: family(
    'gauge',
    ['bucket'],
    "Current objects in the bucket. BUCKETS_SOURCE=rgw: RGW's rgw.main object counter, which also counts noncurrent versions (not delete markers) and the parts of incomplete multipart uploads.",
    'usage',
    { minio: 'bucket_usage_object_total' },
  ),
  usage_snapshot_age_seconds: family(
    'gauge',
    [],
    'Seconds since the usage snapshot served was made (time() - usage_last_scan_completed_timestamp_seconds, at the scrape).',
    { minio: { name: 'usage_last_activity_nano_seconds', scale: 1e9 } },
  ),
})

/**
 * The families of a usage snapshot: its figures per bucket, per user and summed, and the scan
 * health of the same snapshot. The catalogue places them as one block.
 */
export const usageSnapshotFamilies = inFigurePlaces(
  unionOf(
    [usageFamilies, userFamilies, scanHealthFamilies, figureFamilies],
    ['usage', 'users', 'scan health', 'figures'],
  ),
)

/** What the usage collector emits: a snapshot's families and what the series budget left out of it. */
export const usageCollectorFamilies = unionOf(
  [usageSnapshotFamilies, budgetFamilies],
  ['usage snapshot', 'series budget'],
)
export type UsageCollectorFamilies = typeof usageCollectorFamilies
type Sink = MetricSink<UsageCollectorFamilies>

/** Writes every usage and scanner family of `snapshot` but its age, which changes with every scrape. */
export function writeSnapshotSeries(out: Sink, snapshot: UsageSnapshot): void {
  writeSnapshotTotals(out, snapshot)
  for (const record of snapshot.buckets) writeBucketSeries(out, record)
}

/** The sums over measured buckets the snapshot-wide series show, added up one bucket at a time. */
export class UsageTotals {
  buckets = 0
  bytes = 0
  objects = 0
  versions = 0
  deleteMarkers = 0
  versioned = false
  sizeRanges: number[] | undefined
  versionRanges: number[] | undefined

  add(usage: BucketUsage): void {
    this.buckets++
    this.bytes += usage.bytes
    this.objects += usage.objects
    if (usage.sizeRanges) this.sizeRanges = addCounts(this.sizeRanges, usage.sizeRanges)
    if (usage.versions) {
      this.versioned = true
      this.versions += usage.versions.versions
      this.deleteMarkers += usage.versions.deleteMarkers
      this.versionRanges = addCounts(this.versionRanges, usage.versions.versionRanges)
    }
  }
}

/** The totals of every measured bucket of `snapshot`, in one go. */
function usageTotalsOf(snapshot: UsageSnapshot): UsageTotals {
  const totals = new UsageTotals()
  for (const record of snapshot.buckets) {
    const usage = figuresOf(record)
    if (usage) totals.add(usage)
  }
  return totals
}

/**
 * The snapshot-wide series: the source's state and the sums over measured buckets (`totals`, when
 * summed already: usage-render.ts sums a large snapshot in slices).
 */
export function writeSnapshotTotals(
  out: Sink,
  snapshot: UsageSnapshot,
  totals: UsageTotals = usageTotalsOf(snapshot),
): void {
  writeSourceUp(out, snapshot)
  const { sizeRanges, versionRanges } = totals
  // MinIO's cluster-wide distributions: the sums of its per-bucket ones.
  if (sizeRanges) {
    forEachMinioSizeRange(sizeRanges, (range, count) => {
      out.set('cluster_objects_size_distribution', { range }, count)
    })
  }
  if (versionRanges) {
    MINIO_VERSION_RANGES.forEach(({ name: range }, slot) => {
      out.set('cluster_objects_version_distribution', { range }, versionRanges[slot] ?? 0)
    })
  }
  out.set('cluster_buckets', {}, totals.buckets)
  out.set('cluster_usage_total_bytes', {}, totals.bytes)
  out.set('cluster_usage_objects', {}, totals.objects)
  if (totals.versioned) {
    out.set('cluster_usage_versions', {}, totals.versions)
    out.set('cluster_usage_deletemarkers', {}, totals.deleteMarkers)
  }
  if (snapshot.users) writeUsers(out, snapshot.users)
}

/** One bucket's series: its scan health, and its figures when it was ever measured. */
export function writeBucketSeries(out: Sink, record: BucketRecord): void {
  // Read once: a record loaded from the state file decodes its figures on each read (stored-records.ts).
  const usage = figuresOf(record)
  writeScanHealth(out, record, usage)
  if (usage) writeBucketUsage(out, record.name, usage)
}

/** A bucket's figures (the `_other` row of BUCKETS_TOP_N too: its figures are sums). */
export function writeBucketUsage(out: Sink, name: string, usage: BucketUsage): void {
  const bucket = { bucket: name }
  out.set('bucket_usage_total_bytes', bucket, usage.bytes)
  out.set('bucket_usage_objects', bucket, usage.objects)
  writeFigures(out, name, usage)
}

/** `sum` plus `counts`, slot by slot (a new array when `sum` is undefined). */
/** An indexed loop: at 100,000 buckets forEach's callbacks took some 130 ms of the totals' 200. */
function addCounts(sum: number[] | undefined, counts: readonly number[]): number[] {
  const added = sum ?? new Array<number>(counts.length).fill(0)
  for (let slot = 0; slot < counts.length; slot++) added[slot] = (added[slot] ?? 0) + (counts[slot] as number)
  return added
}
