/*
 * The versions figure's families and how a bucket's record writes them (index.ts: the figure).
 * The snapshot-wide sums (cluster_usage_versions...) are the usage collector's
 * (src/collectors/usage-series.ts); the noncurrent ages and expired delete markers the `hidden`
 * group's (src/figures/hidden/).
 */
import { describe, family } from '../../metrics/families.js'
import type { MetricSink } from '../../metrics/metric-set.js'
import type { Frozen } from '../deep-readonly.js'
import type { VersionValues } from './fold.js'
import { MINIO_VERSION_RANGES } from './ranges.js'

export const versionFamilies = describe('usage', {
  bucket_usage_versions: family(
    'gauge',
    ['bucket'],
    'Object versions in the bucket, delete markers included (SCAN_VERSIONS).',
    'versions',
    { minio: 'bucket_usage_version_total' },
  ),
  bucket_usage_deletemarkers: family(
    'gauge',
    ['bucket'],
    'Delete markers in the bucket (SCAN_VERSIONS).',
    'versions',
    { minio: 'bucket_usage_deletemarker_total' },
  ),
  bucket_noncurrent_bytes: family(
    'gauge',
    ['bucket'],
    'Bytes of noncurrent object versions in the bucket (SCAN_VERSIONS).',
    'versions',
  ),
  bucket_objects_version_distribution: family(
    'gauge',
    ['bucket', 'range'],
    'Keys per MinIO version-count range, delete markers counted (SCAN_VERSIONS); UNVERSIONED: only a null version.',
    'versions',
  ),
})

/** A bucket's version series, when versions were listed (the `_other` row's too: its counts are sums). */
export function writeVersions(
  out: MetricSink<typeof versionFamilies>,
  name: string,
  { versions }: Frozen<{ versions?: VersionValues | undefined }>,
): void {
  if (versions === undefined) return
  const bucket = { bucket: name }
  out.set('bucket_usage_versions', bucket, versions.versions)
  out.set('bucket_usage_deletemarkers', bucket, versions.deleteMarkers)
  out.set('bucket_noncurrent_bytes', bucket, versions.noncurrentBytes)
  MINIO_VERSION_RANGES.forEach(({ name: range }, slot) => {
    out.set('bucket_objects_version_distribution', { bucket: name, range }, versions.versionRanges[slot] ?? 0)
  })
}
