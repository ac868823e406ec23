/*
 * "Where the bytes went" (the opt-in `hidden` group): what a listing of current objects hides.
 * Noncurrent versions per age band of how long they have been noncurrent and the expired delete
 * markers (SCAN_VERSIONS: folded by fold.ts, a step of the versions fold), and the bytes of the
 * parts of incomplete multipart uploads with the stale ones (s3: ListParts, set whole on the
 * record by the source). Their properties live in the record's `versions` and `multipart` parts
 * (parts.ts, spread in by those figures), so this figure declares none of its own: it writes its
 * families from those parts.
 */
import { describe, family } from '../../metrics/families.js'
import type { MetricSink } from '../../metrics/metric-set.js'
import { AGE_LABEL_HELP as AGE, forEachBand } from '../age/bands.js'
import { multipart } from '../multipart/index.js'
import { defineFigure } from '../types.js'
import { versions } from '../versions/index.js'
import type { HiddenMultipartValues, HiddenVersionValues } from './parts.js'

const hiddenFamilies = describe('usage', {
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

type Sink = MetricSink<typeof hiddenFamilies>
type BandFamily = 'bucket_noncurrent_age_bytes' | 'bucket_noncurrent_age_versions'

/**
 * What it reads of a record: its properties of the `versions` and `multipart` parts (`reads`).
 */
interface HiddenValues {
  readonly versions?: HiddenVersionValues | undefined
  readonly multipart?: HiddenMultipartValues | undefined
}

export const hidden = defineFigure({
  name: 'hidden',
  record: () => ({}),
  combine: {},
  example: {},
  reads: [versions, multipart],
  families: hiddenFamilies,
  write: (out: Sink, name: string, { versions, multipart }: HiddenValues) => {
    const bucket = { bucket: name }
    writeBands(out, 'bucket_noncurrent_age_bytes', name, versions?.noncurrentAgeBytes)
    writeBands(out, 'bucket_noncurrent_age_versions', name, versions?.noncurrentAgeVersions)
    if (versions?.expiredDeleteMarkers !== undefined) {
      out.set('bucket_expired_deletemarkers', bucket, versions.expiredDeleteMarkers)
    }
    if (multipart?.bytes !== undefined)
      out.set('bucket_multipart_uploads_incomplete_bytes', bucket, multipart.bytes)
    if (multipart?.unsized !== undefined)
      out.set('bucket_multipart_uploads_unsized', bucket, multipart.unsized)
    if (multipart?.stale !== undefined) out.set('bucket_multipart_uploads_stale', bucket, multipart.stale)
    if (multipart?.staleBytes !== undefined) {
      out.set('bucket_multipart_uploads_stale_bytes', bucket, multipart.staleBytes)
    }
  },
  keepsPlace: { family: 'bucket_prefix_usage_total_bytes', property: {} },
})

function writeBands(out: Sink, key: BandFamily, name: string, counts: readonly number[] | undefined): void {
  if (counts) forEachBand(counts, (age, count) => out.set(key, { bucket: name, age }, count))
}
