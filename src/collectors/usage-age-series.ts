/*
 * "Where the bytes went": the per-bucket families that split a bucket's bytes by age and size what
 * a listing hides (noncurrent versions by how long they have been noncurrent, expired delete
 * markers, the parts of incomplete multipart uploads). Written by the usage collector beside its
 * other per-bucket families (usage-series.ts), from the same record.
 */

import { AGE_LABEL_HELP as AGE, forEachBand } from '../figures/age/bands.js'
import { describe, family } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { BucketUsage } from '../sources/types.js'

export const usageAgeFamilies = describe('usage', {
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

type BandFamily = 'bucket_noncurrent_age_bytes' | 'bucket_noncurrent_age_versions'

function writeBands(out: Sink, key: BandFamily, name: string, counts: readonly number[] | undefined): void {
  if (counts) forEachBand(counts, (age, count) => out.set(key, { bucket: name, age }, count))
}
