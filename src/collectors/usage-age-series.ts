/*
 * "Where the bytes went": the per-bucket families that split a bucket's bytes by age and size what
 * a listing hides (noncurrent versions by how long they have been noncurrent, expired delete
 * markers, the parts of incomplete multipart uploads). Written by the usage collector beside its
 * other per-bucket families (usage-series.ts), from the same record.
 */

import { AGE_BANDS } from '../figures/age-bands.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { BucketUsage } from '../sources/types.js'

/** What the `age` label's values mean, said once in every help text that has one. */
const AGE =
  'age: lt_1d under a day, lt_7d 1 to 7 days, lt_30d, lt_90d, lt_180d, lt_365d, gte_365d a year or more, at the scan start'

export const usageAgeFamilies = describe('usage', {
  bucket_age_bytes: family(
    'gauge',
    ['bucket', 'age'],
    `Bytes of current objects by last-modified age band (fs: mtime; s3: LastModified from the listing; ${AGE}).`,
    'age',
  ),
  bucket_age_objects: family(
    'gauge',
    ['bucket', 'age'],
    `Current objects by last-modified age band (fs: mtime; s3: LastModified from the listing; ${AGE}).`,
    'age',
  ),
  bucket_storage_class_age_bytes: family(
    'gauge',
    ['bucket', 'storage_class', 'age'],
    `Bytes of current objects by storage class and last-modified age band (s3: from the listing; ${AGE}).`,
    'age',
  ),
  bucket_noncurrent_age_bytes: family(
    'gauge',
    ['bucket', 'age'],
    `Bytes of noncurrent versions by how long they have been noncurrent: since the next newer version or delete marker of their key was written (SCAN_VERSIONS, ListObjectVersions; ${AGE}).`,
    'hidden',
  ),
  bucket_noncurrent_age_versions: family(
    'gauge',
    ['bucket', 'age'],
    `Noncurrent versions by how long they have been noncurrent: since the next newer version or delete marker of their key was written (SCAN_VERSIONS, ListObjectVersions; ${AGE}).`,
    'hidden',
  ),
  bucket_expired_deletemarkers: family(
    'gauge',
    ['bucket'],
    'Delete markers with no version behind them (a key whose only entry is a delete marker), which a lifecycle ExpiredObjectDeleteMarker rule removes (SCAN_VERSIONS).',
    'hidden',
  ),
  bucket_multipart_uploads_incomplete_bytes: family(
    'gauge',
    ['bucket'],
    'Bytes of the parts of incomplete multipart uploads (s3: ListParts for at most MULTIPART_PARTS_MAX_UPLOADS uploads per bucket; bucket_multipart_uploads_unsized counts the others).',
    'hidden',
  ),
  bucket_multipart_uploads_unsized: family(
    'gauge',
    ['bucket'],
    'Incomplete multipart uploads whose parts were not listed: past MULTIPART_PARTS_MAX_UPLOADS, or gone before they were (s3). Their bytes are in no _bytes family.',
    'hidden',
  ),
  bucket_multipart_uploads_stale: family(
    'gauge',
    ['bucket'],
    'Incomplete multipart uploads initiated at least MULTIPART_STALE_DAYS before the scan started (s3, from ListMultipartUploads).',
    'hidden',
  ),
  bucket_multipart_uploads_stale_bytes: family(
    'gauge',
    ['bucket'],
    'Bytes of the parts of the stale incomplete multipart uploads that were sized (s3: ListParts; see bucket_multipart_uploads_unsized).',
    'hidden',
  ),
})

type Sink = MetricSink<typeof usageAgeFamilies>

/** One bucket's age and hidden-bytes series, those its source measured. */
export function writeBucketAgeSeries(out: Sink, name: string, usage: BucketUsage): void {
  const bucket = { bucket: name }
  writeBands(out, 'bucket_age_bytes', name, usage.ageBytes)
  writeBands(out, 'bucket_age_objects', name, usage.ageObjects)
  for (const [storageClass, counts] of Object.entries(usage.storageClassAgeBytes ?? {})) {
    AGE_BANDS.forEach(({ name: age }, slot) => {
      out.set(
        'bucket_storage_class_age_bytes',
        { bucket: name, storage_class: storageClass, age },
        counts[slot] ?? 0,
      )
    })
  }
  const versions = usage.versions
  writeBands(out, 'bucket_noncurrent_age_bytes', name, versions?.noncurrentAgeBytes)
  writeBands(out, 'bucket_noncurrent_age_versions', name, versions?.noncurrentAgeVersions)
  if (versions?.expiredDeleteMarkers !== undefined) {
    out.set('bucket_expired_deletemarkers', bucket, versions.expiredDeleteMarkers)
  }
  const multipart = usage.multipart
  if (multipart?.bytes !== undefined)
    out.set('bucket_multipart_uploads_incomplete_bytes', bucket, multipart.bytes)
  if (multipart?.unsized !== undefined) out.set('bucket_multipart_uploads_unsized', bucket, multipart.unsized)
  if (multipart?.stale !== undefined) out.set('bucket_multipart_uploads_stale', bucket, multipart.stale)
  if (multipart?.staleBytes !== undefined) {
    out.set('bucket_multipart_uploads_stale_bytes', bucket, multipart.staleBytes)
  }
}

type BandFamily =
  | 'bucket_age_bytes'
  | 'bucket_age_objects'
  | 'bucket_noncurrent_age_bytes'
  | 'bucket_noncurrent_age_versions'

/** Every band, zeros included, so a band that empties shows 0 rather than vanishing. */
function writeBands(out: Sink, key: BandFamily, name: string, counts: readonly number[] | undefined): void {
  if (!counts) return
  AGE_BANDS.forEach(({ name: age }, slot) => {
    out.set(key, { bucket: name, age }, counts[slot] ?? 0)
  })
}
