import type { MetricSet } from '../metrics/metric-set.js'
import {
  MINIO_SIZE_AGGREGATE,
  MINIO_SIZE_RANGES,
  MINIO_VERSION_RANGES,
  OBJECT_SIZE_BOUNDS,
} from '../scanner/size-ranges.js'
import type { BucketRecord, UsageSnapshot } from '../scanner/snapshot.js'
import type { BucketUsage } from '../scanner/sources/types.js'
import type { Collector } from './types.js'

export interface UsageCollectorOptions {
  /** The scanner's last completed snapshot; undefined until the first one. */
  readonly snapshot: () => UsageSnapshot | undefined
  /** Injected by tests that pin the clock; Date.now otherwise. */
  readonly now?: () => number
}

/**
 * Bucket usage and scan health from the scanner's last snapshot. No I/O: a scrape reads what the
 * background scanner published, whole, so it is consistent even while a scan runs. Buckets absent
 * from the snapshot (deleted, filtered out) have no series at all.
 */
export function createUsageCollector(options: UsageCollectorOptions): Collector {
  const now = options.now ?? Date.now
  return {
    name: 'usage',
    collect(out: MetricSet) {
      const snapshot = options.snapshot()
      if (snapshot) writeSnapshot(out, snapshot, now())
    },
  }
}

/** Writes every usage and scanner family of `snapshot`, as of `nowMs` (for the snapshot's age). */
export function writeSnapshot(out: MetricSet, snapshot: UsageSnapshot, nowMs: number): void {
  out.set('sourceUp', { source: snapshot.sourceName }, snapshot.sourceUp ? 1 : 0)
  out.set('usageLastActivityNanoSeconds', {}, Math.max(0, nowMs - snapshot.completedAtMs) * 1e6)
  const totals = { buckets: 0, bytes: 0, objects: 0, versions: 0, deleteMarkers: 0, versioned: false }
  for (const record of snapshot.buckets) {
    writeScanHealth(out, record)
    const { usage } = record
    if (!usage) continue
    totals.buckets++
    totals.bytes += usage.bytes
    totals.objects += usage.objects
    if (usage.versions) {
      totals.versioned = true
      totals.versions += usage.versions.versions
      totals.deleteMarkers += usage.versions.deleteMarkers
    }
    writeBucketUsage(out, record.name, usage)
  }
  out.set('clusterBucketTotal', {}, totals.buckets)
  out.set('clusterUsageTotalBytes', {}, totals.bytes)
  out.set('clusterUsageObjectTotal', {}, totals.objects)
  if (totals.versioned) {
    out.set('clusterUsageVersionTotal', {}, totals.versions)
    out.set('clusterUsageDeletemarkerTotal', {}, totals.deleteMarkers)
  }
}

function writeScanHealth(out: MetricSet, record: BucketRecord): void {
  const bucket = { bucket: record.name }
  out.set('bucketScanSuccess', bucket, record.scanSuccess ? 1 : 0)
  out.set('bucketScanDurationSeconds', bucket, record.scanDurationSeconds)
  if (record.lastSuccessSeconds !== undefined) {
    out.set('bucketScanLastSuccessTimestampSeconds', bucket, record.lastSuccessSeconds)
  }
}

function writeBucketUsage(out: MetricSet, name: string, usage: BucketUsage): void {
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
function writeSizeRanges(out: MetricSet, name: string, counts: readonly number[]): void {
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
