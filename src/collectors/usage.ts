import type { MetricSet, MetricSink } from '../metrics/metric-set.js'
import {
  MINIO_SIZE_AGGREGATE,
  MINIO_SIZE_RANGES,
  MINIO_VERSION_RANGES,
  OBJECT_SIZE_BOUNDS,
} from '../scanner/size-ranges.js'
import type { BucketRecord, UsageSnapshot } from '../scanner/snapshot.js'
import type { BucketUsage } from '../scanner/sources/types.js'
import type { Collector } from './types.js'
import type { UsageExposition } from './usage-exposition.js'

export interface UsageCollectorOptions {
  /** The scanner's last completed snapshot; undefined until the first one. */
  readonly snapshot: () => UsageSnapshot | undefined
  /** Renders each snapshot's families once, for every scrape of it. */
  readonly exposition: UsageExposition
  /** Injected by tests that pin the clock; Date.now otherwise. */
  readonly now?: () => number
}

/**
 * Bucket usage and scan health from the scanner's last snapshot. No I/O: a scrape reads what the
 * background scanner published, whole, so it is consistent even while a scan runs. Buckets absent
 * from the snapshot (deleted, filtered out) have no series at all. Everything but the snapshot's
 * age is rendered once per snapshot (UsageExposition) and attached as it is: at 10,000 buckets
 * that is some 400,000 series a scrape does not render again.
 */
export function createUsageCollector(options: UsageCollectorOptions): Collector {
  const now = options.now ?? Date.now
  return {
    name: 'usage',
    async collect(out: MetricSet) {
      const snapshot = options.snapshot()
      if (!snapshot) return
      out.set('usageLastActivityNanoSeconds', {}, Math.max(0, now() - snapshot.completedAtMs) * 1e6)
      out.attach(await options.exposition.blockFor(snapshot))
    },
  }
}

/** Writes every usage and scanner family of `snapshot` but its age, which changes with every scrape. */
export function writeSnapshotSeries(out: MetricSink, snapshot: UsageSnapshot): void {
  writeSnapshotTotals(out, snapshot)
  for (const record of snapshot.buckets) writeBucketSeries(out, record)
}

/** The snapshot-wide series: the source's state and the sums over measured buckets. */
export function writeSnapshotTotals(out: MetricSink, snapshot: UsageSnapshot): void {
  out.set('sourceUp', { source: snapshot.sourceName }, snapshot.sourceUp ? 1 : 0)
  const totals = { buckets: 0, bytes: 0, objects: 0, versions: 0, deleteMarkers: 0, versioned: false }
  for (const { usage } of snapshot.buckets) {
    if (!usage) continue
    totals.buckets++
    totals.bytes += usage.bytes
    totals.objects += usage.objects
    if (usage.versions) {
      totals.versioned = true
      totals.versions += usage.versions.versions
      totals.deleteMarkers += usage.versions.deleteMarkers
    }
  }
  out.set('clusterBucketTotal', {}, totals.buckets)
  out.set('clusterUsageTotalBytes', {}, totals.bytes)
  out.set('clusterUsageObjectTotal', {}, totals.objects)
  if (totals.versioned) {
    out.set('clusterUsageVersionTotal', {}, totals.versions)
    out.set('clusterUsageDeletemarkerTotal', {}, totals.deleteMarkers)
  }
}

/** One bucket's series: its scan health, and its figures when it was ever measured. */
export function writeBucketSeries(out: MetricSink, record: BucketRecord): void {
  writeScanHealth(out, record)
  if (record.usage) writeBucketUsage(out, record.name, record.usage)
}

function writeScanHealth(out: MetricSink, record: BucketRecord): void {
  const bucket = { bucket: record.name }
  out.set('bucketScanSuccess', bucket, record.scanSuccess ? 1 : 0)
  out.set('bucketScanDurationSeconds', bucket, record.scanDurationSeconds)
  if (record.lastSuccessSeconds !== undefined) {
    out.set('bucketScanLastSuccessTimestampSeconds', bucket, record.lastSuccessSeconds)
  }
  if (record.usage?.unreadableEntries !== undefined) {
    out.set('bucketScanUnreadableEntries', bucket, record.usage.unreadableEntries)
  }
}

function writeBucketUsage(out: MetricSink, name: string, usage: BucketUsage): void {
  const bucket = { bucket: name }
  out.set('bucketUsageTotalBytes', bucket, usage.bytes)
  out.set('bucketUsageObjectTotal', bucket, usage.objects)
  if (usage.sizeRanges) writeSizeRanges(out, name, usage.sizeRanges)
  if (usage.sizeHistogram) {
    let cumulative = 0
    const cumulativeCounts = OBJECT_SIZE_BOUNDS.map((_, slot) => {
      cumulative += usage.sizeHistogram?.[slot] ?? 0
      return cumulative
    })
    out.histogram('bucketObjectSizeBytes', bucket, {
      upperBounds: OBJECT_SIZE_BOUNDS,
      cumulativeCounts,
      sum: usage.bytes,
      count: usage.objects,
    })
  }
  if (usage.newestModifiedSeconds !== undefined) {
    out.set('bucketNewestObjectTimestampSeconds', bucket, usage.newestModifiedSeconds)
  }
  if (usage.oldestModifiedSeconds !== undefined) {
    out.set('bucketOldestObjectTimestampSeconds', bucket, usage.oldestModifiedSeconds)
  }
  for (const [storageClass, bytes] of Object.entries(usage.storageClassBytes ?? {})) {
    out.set('bucketStorageClassBytes', { bucket: name, storage_class: storageClass }, bytes)
  }
  if (usage.versions) {
    out.set('bucketUsageVersionTotal', bucket, usage.versions.versions)
    out.set('bucketUsageDeletemarkerTotal', bucket, usage.versions.deleteMarkers)
    out.set('bucketNoncurrentBytes', bucket, usage.versions.noncurrentBytes)
    MINIO_VERSION_RANGES.forEach(({ name: range }, slot) => {
      out.set(
        'bucketObjectsVersionDistribution',
        { bucket: name, range },
        usage.versions?.versionRanges[slot] ?? 0,
      )
    })
  }
  if (usage.multipart) {
    out.set('bucketMultipartUploadsIncomplete', bucket, usage.multipart.incomplete)
    if (usage.multipart.oldestInitiatedSeconds !== undefined) {
      out.set(
        'bucketMultipartOldestInitiatedTimestampSeconds',
        bucket,
        usage.multipart.oldestInitiatedSeconds,
      )
    }
  }
  if (usage.quotaBytes !== undefined) out.set('bucketQuotaTotalBytes', bucket, usage.quotaBytes)
}

/** MinIO's eleven `range` values, in MinIO's order, the 1 KiB-1 MiB aggregate in its place. */
function writeSizeRanges(out: MetricSink, name: string, counts: readonly number[]): void {
  MINIO_SIZE_RANGES.forEach(({ name: range }, slot) => {
    out.set('bucketObjectsSizeDistribution', { bucket: name, range }, counts[slot] ?? 0)
    if (slot === MINIO_SIZE_AGGREGATE.after) {
      let aggregate = 0
      for (let member = MINIO_SIZE_AGGREGATE.from; member <= MINIO_SIZE_AGGREGATE.to; member++) {
        aggregate += counts[member] ?? 0
      }
      out.set('bucketObjectsSizeDistribution', { bucket: name, range: MINIO_SIZE_AGGREGATE.name }, aggregate)
    }
  })
}
