/**
 * long: catalogue: one declaration per family, to be split by collector (issue 12)
 *
 * The catalogue: every metric family the exporter can ever emit, declared once with its help,
 * type and label names. Collectors may emit only these families (enforced at emission); the
 * README's metrics reference, the dashboard checks and the alert-rule checks all read it.
 *
 * Names are written without the namespace (`METRICS_NAMESPACE`, default `objstore`) and follow
 * MinIO's v2 conventions where MinIO has the family, so `METRICS_NAMESPACE=minio` gives
 * MinIO-compatible names. Families MinIO lacks use Prometheus base units.
 */

/**
 * `untyped` is used only for MinIO's count families whose names end in `_total` although they are
 * not counters (`cluster_drive_total`, `bucket_usage_object_total`, ...): keeping MinIO's names
 * keeps MinIO dashboards working, and declaring them untyped rather than gauge is what keeps
 * `promtool check metrics` clean (it rejects `_total` on gauges) without claiming counter semantics.
 */
export type MetricType = 'gauge' | 'counter' | 'histogram' | 'untyped'

export interface FamilyDefinition {
  /** Name without the namespace prefix. Counters end in `_total`. */
  readonly name: string
  readonly help: string
  readonly type: MetricType
  readonly labels: readonly string[]
  /** Which part of the exporter emits it (for docs and for grouping). */
  readonly group: 'drives' | 'usage' | 'scanner' | 'exporter' | 'logger'
}

function family<const T extends MetricType, const L extends readonly string[]>(
  group: FamilyDefinition['group'],
  type: T,
  name: string,
  labels: L,
  help: string,
) {
  return { group, type, name, labels, help } as const
}

export const catalogue = {
  // Drives and cluster capacity (MinIO v2 names).
  nodeDriveTotalBytes: family(
    'drives',
    'gauge',
    'node_drive_total_bytes',
    ['drive'],
    'Total bytes of the filesystem holding the drive path (statfs).',
  ),
  nodeDriveUsedBytes: family(
    'drives',
    'gauge',
    'node_drive_used_bytes',
    ['drive'],
    'Used bytes of the filesystem holding the drive path (total minus free blocks).',
  ),
  nodeDriveFreeBytes: family(
    'drives',
    'gauge',
    'node_drive_free_bytes',
    ['drive'],
    'Bytes available to unprivileged users on the drive (statfs bavail).',
  ),
  nodeDriveTotalInodes: family(
    'drives',
    'gauge',
    'node_drive_total_inodes',
    ['drive'],
    'Total inodes of the filesystem holding the drive path.',
  ),
  nodeDriveUsedInodes: family(
    'drives',
    'gauge',
    'node_drive_used_inodes',
    ['drive'],
    'Used inodes of the filesystem holding the drive path.',
  ),
  nodeDriveFreeInodes: family(
    'drives',
    'gauge',
    'node_drive_free_inodes',
    ['drive'],
    'Free inodes of the filesystem holding the drive path.',
  ),
  nodeDriveOnline: family(
    'drives',
    'gauge',
    'node_drive_online',
    ['drive'],
    'Whether the drive answered statfs in time (1) or not (0); the reason is logged.',
  ),
  clusterDriveOnlineTotal: family(
    'drives',
    'untyped',
    'cluster_drive_online_total',
    [],
    'Number of drives online.',
  ),
  clusterDriveOfflineTotal: family(
    'drives',
    'untyped',
    'cluster_drive_offline_total',
    [],
    'Number of drives offline.',
  ),
  clusterDriveTotal: family('drives', 'untyped', 'cluster_drive_total', [], 'Number of configured drives.'),
  clusterCapacityRawTotalBytes: family(
    'drives',
    'gauge',
    'cluster_capacity_raw_total_bytes',
    [],
    'Sum of the total bytes of online drives.',
  ),
  clusterCapacityRawFreeBytes: family(
    'drives',
    'gauge',
    'cluster_capacity_raw_free_bytes',
    [],
    'Sum of the free bytes of online drives.',
  ),
  clusterCapacityUsableTotalBytes: family(
    'drives',
    'gauge',
    'cluster_capacity_usable_total_bytes',
    [],
    'Raw total bytes times data/(data+parity) drives (EC_PARITY).',
  ),
  clusterCapacityUsableFreeBytes: family(
    'drives',
    'gauge',
    'cluster_capacity_usable_free_bytes',
    [],
    'Raw free bytes times data/(data+parity) drives (EC_PARITY).',
  ),

  // Bucket usage (MinIO v2 names), from the background scanner's last snapshot.
  clusterBucketTotal: family(
    'usage',
    'untyped',
    'cluster_bucket_total',
    [],
    'Number of buckets measured in the last usage snapshot.',
  ),
  clusterUsageTotalBytes: family(
    'usage',
    'gauge',
    'cluster_usage_total_bytes',
    [],
    "Bytes of current objects, summed over measured buckets (BUCKETS_SOURCE=rgw: RGW's rgw.main counters, see bucket_usage_total_bytes).",
  ),
  clusterUsageObjectTotal: family(
    'usage',
    'untyped',
    'cluster_usage_object_total',
    [],
    "Current objects, summed over measured buckets (BUCKETS_SOURCE=rgw: RGW's rgw.main counters, see bucket_usage_object_total).",
  ),
  clusterUsageVersionTotal: family(
    'usage',
    'untyped',
    'cluster_usage_version_total',
    [],
    'Object versions, summed over buckets scanned with versions.',
  ),
  clusterUsageDeletemarkerTotal: family(
    'usage',
    'untyped',
    'cluster_usage_deletemarker_total',
    [],
    'Delete markers, summed over buckets scanned with versions.',
  ),
  bucketUsageTotalBytes: family(
    'usage',
    'gauge',
    'bucket_usage_total_bytes',
    ['bucket'],
    "Bytes of current objects in the bucket. BUCKETS_SOURCE=rgw: RGW's rgw.main size counter, which also counts noncurrent versions and the parts of incomplete multipart uploads.",
  ),
  bucketUsageObjectTotal: family(
    'usage',
    'untyped',
    'bucket_usage_object_total',
    ['bucket'],
    "Current objects in the bucket. BUCKETS_SOURCE=rgw: RGW's rgw.main object counter, which also counts noncurrent versions (not delete markers) and the parts of incomplete multipart uploads.",
  ),
  bucketUsageVersionTotal: family(
    'usage',
    'untyped',
    'bucket_usage_version_total',
    ['bucket'],
    'Object versions in the bucket, delete markers included (SCAN_VERSIONS).',
  ),
  bucketUsageDeletemarkerTotal: family(
    'usage',
    'untyped',
    'bucket_usage_deletemarker_total',
    ['bucket'],
    'Delete markers in the bucket (SCAN_VERSIONS).',
  ),
  bucketNoncurrentBytes: family(
    'usage',
    'gauge',
    'bucket_noncurrent_bytes',
    ['bucket'],
    'Bytes of noncurrent object versions in the bucket (SCAN_VERSIONS).',
  ),
  bucketQuotaTotalBytes: family(
    'usage',
    'gauge',
    'bucket_quota_total_bytes',
    ['bucket'],
    'Bucket quota in bytes, where the source knows one (BUCKETS_SOURCE=rgw: an enabled RGW bucket quota with a size limit).',
  ),
  bucketObjectsSizeDistribution: family(
    'usage',
    'gauge',
    'bucket_objects_size_distribution',
    ['bucket', 'range'],
    'Current objects per MinIO size range (BETWEEN_1024B_AND_1_MB aggregates four others, as in MinIO).',
  ),
  bucketObjectsVersionDistribution: family(
    'usage',
    'gauge',
    'bucket_objects_version_distribution',
    ['bucket', 'range'],
    'Keys per MinIO version-count range, delete markers counted (SCAN_VERSIONS); UNVERSIONED: only a null version.',
  ),
  bucketObjectSizeBytes: family(
    'usage',
    'histogram',
    'bucket_object_size_bytes',
    ['bucket'],
    'Size of current objects in the bucket, as a histogram (use histogram_quantile); bounds 1 KiB x 4^k up to 256 GiB.',
  ),
  bucketNewestObjectTimestampSeconds: family(
    'usage',
    'gauge',
    'bucket_newest_object_timestamp_seconds',
    ['bucket'],
    'Last-modified time (mtime for fs) of the newest current object, seconds since the epoch.',
  ),
  bucketOldestObjectTimestampSeconds: family(
    'usage',
    'gauge',
    'bucket_oldest_object_timestamp_seconds',
    ['bucket'],
    'Last-modified time (mtime for fs) of the oldest current object, seconds since the epoch.',
  ),
  bucketStorageClassBytes: family(
    'usage',
    'gauge',
    'bucket_storage_class_bytes',
    ['bucket', 'storage_class'],
    'Bytes of current objects per storage class, as the store lists them (s3).',
  ),
  bucketMultipartUploadsIncomplete: family(
    'usage',
    'gauge',
    'bucket_multipart_uploads_incomplete',
    ['bucket'],
    "Multipart uploads started and neither completed nor aborted (s3, where the store lists them; rgw: RGW's rgw.multimeta counter).",
  ),
  bucketMultipartOldestInitiatedTimestampSeconds: family(
    'usage',
    'gauge',
    'bucket_multipart_oldest_initiated_timestamp_seconds',
    ['bucket'],
    'Initiation time of the oldest incomplete multipart upload, seconds since the epoch.',
  ),
  usageLastActivityNanoSeconds: family(
    'usage',
    'gauge',
    'usage_last_activity_nano_seconds',
    [],
    'Nanoseconds since the usage snapshot served was made (MinIO name).',
  ),

  // Scanner health.
  bucketScanSuccess: family(
    'scanner',
    'gauge',
    'bucket_scan_success',
    ['bucket'],
    'Whether the last scan of the bucket succeeded (1) or failed (0); figures are from the last success.',
  ),
  bucketScanDurationSeconds: family(
    'scanner',
    'gauge',
    'bucket_scan_duration_seconds',
    ['bucket'],
    'Duration of the last scan of the bucket, retries included.',
  ),
  bucketScanLastSuccessTimestampSeconds: family(
    'scanner',
    'gauge',
    'bucket_scan_last_success_timestamp_seconds',
    ['bucket'],
    'When the bucket was last scanned successfully, seconds since the epoch.',
  ),
  bucketScanUnreadableEntries: family(
    'scanner',
    'gauge',
    'bucket_scan_unreadable_entries',
    ['bucket'],
    'Files and folders below the bucket that its last successful scan could not read (fs: path over PATH_MAX, I/O error, permission); the figures leave them out.',
  ),
  sourceUp: family(
    'scanner',
    'gauge',
    'source_up',
    ['source'],
    'Whether the usage source answered the last scan (1: listed its buckets and measured at least one, if any) or not (0).',
  ),

  // The exporter itself.
  exporterBuildInfo: family(
    'exporter',
    'gauge',
    'exporter_build_info',
    ['version', 'node_version'],
    'Build information of the exporter; always 1.',
  ),
  scrapeCollectorSuccess: family(
    'exporter',
    'gauge',
    'scrape_collector_success',
    ['collector'],
    'Whether the collector succeeded in this scrape (1) or failed or timed out (0).',
  ),
  scrapeCollectorDurationSeconds: family(
    'exporter',
    'gauge',
    'scrape_collector_duration_seconds',
    ['collector'],
    'Time the collector took in this scrape.',
  ),

  // The HTTP log target.
  loggerHttpSentTotal: family(
    'logger',
    'counter',
    'logger_http_sent_total',
    [],
    'Log entries delivered to the HTTP log target.',
  ),
  loggerHttpFailedTotal: family(
    'logger',
    'counter',
    'logger_http_failed_total',
    [],
    'Log entries in batches the HTTP log receiver rejected for good (4xx other than 408 and 429); not retried.',
  ),
  loggerHttpDroppedTotal: family(
    'logger',
    'counter',
    'logger_http_dropped_total',
    [],
    'Log entries dropped because the HTTP log target queue was full (oldest first), or still queued at the shutdown deadline.',
  ),
  loggerHttpQueueEntries: family(
    'logger',
    'gauge',
    'logger_http_queue_entries',
    [],
    'Log entries waiting for the HTTP log target, the batch being sent included.',
  ),
  loggerHttpOnline: family(
    'logger',
    'gauge',
    'logger_http_online',
    [],
    'Whether the last delivery attempt to the HTTP log target succeeded (1) or not (0); 1 before the first attempt.',
  ),
} as const satisfies Record<string, FamilyDefinition>

export type Catalogue = typeof catalogue
export type FamilyKey = keyof Catalogue
/** The label set a family requires, typed from its declaration. */
export type LabelsOf<K extends FamilyKey> = Catalogue[K]['labels'] extends readonly []
  ? Readonly<Record<string, never>>
  : { readonly [L in Catalogue[K]['labels'][number]]: string }
export type FamilyKeyOfType<T extends MetricType> = {
  [K in FamilyKey]: Catalogue[K]['type'] extends T ? K : never
}[FamilyKey]

export const familyKeys = Object.keys(catalogue) as FamilyKey[]

export function fullName(namespace: string, key: FamilyKey): string {
  return `${namespace}_${catalogue[key].name}`
}

/**
 * Runtime families that prom-client's default metrics produce; declared here by prefix because
 * prom-client names them (process_*, nodejs_*). They are rendered from their own registry.
 */
export const RUNTIME_FAMILY_PREFIXES = ['process_', 'nodejs_'] as const

/**
 * prom-client's `nodejs_active_{handles,requests,resources}_total` are gauges with a counter's
 * suffix, which `promtool check metrics` rejects. The same numbers are in the labelled
 * `nodejs_active_{handles,requests,resources}` gauges (sum over `type`), so these are not served.
 */
export const DROPPED_RUNTIME_FAMILIES: ReadonlySet<string> = new Set([
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
])
