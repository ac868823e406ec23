/*
 * A bucket's object versions (SCAN_VERSIONS, and a store that lists them): every version and
 * delete marker, the bytes of the noncurrent ones, the keys per MinIO version-count range; with
 * the `hidden` group also the noncurrent versions per age band and the expired delete markers
 * (that group's properties, fold step and families are src/figures/hidden/'s). Its fold step takes every entry of a
 * versioned listing (fold.ts); a listing of current objects gives none, and the record no part.
 */
import { sumProblem } from '../adds-up.js'
import { HIDDEN_VERSION_COMBINE, hiddenVersionExample, hiddenVersionProperties } from '../hidden/parts.js'
import { defineFigure } from '../types.js'
import { versionFamilies, writeVersions } from './families.js'
import { versionFold } from './fold.js'
import { MINIO_VERSION_RANGES } from './ranges.js'

const ADDED = { additive: true } as const

export const versions = defineFigure({
  name: 'versions',
  record: ({ Type, Count }) => {
    const counts = (length: number) => Type.Array(Count, { minItems: length, maxItems: length })
    return {
      /** Present when versions were listed (SCAN_VERSIONS and a store that supports it). */
      versions: Type.Optional(
        Type.Object({
          /** Every version, delete markers included (MinIO's definition of the version total). */
          versions: Count,
          deleteMarkers: Count,
          noncurrentBytes: Count,
          /** Keys per MINIO_VERSION_RANGES entry. */
          versionRanges: counts(MINIO_VERSION_RANGES.length),
          /** The `hidden` group's: noncurrent versions per age band, expired delete markers. */
          ...hiddenVersionProperties({ Type, Count }),
        }),
      ),
    }
  },
  entries: 'versions',
  fold: ({ nowMs, hidden }) => versionFold(nowMs, hidden ?? true),
  combine: {
    versions: {
      part: {
        versions: { ...ADDED, says: 'versions' },
        deleteMarkers: { ...ADDED, says: 'delete markers' },
        noncurrentBytes: { ...ADDED, says: 'noncurrent bytes' },
        versionRanges: { ...ADDED, says: 'the version distribution' },
        ...HIDDEN_VERSION_COMBINE,
      },
    },
  },
  invariant: ({ versions }) => {
    if (versions === undefined) return undefined
    if (versions.deleteMarkers > versions.versions)
      return `/usage/versions: ${versions.deleteMarkers} delete markers among ${versions.versions} versions`
    return sumProblem(
      versions.noncurrentAgeBytes,
      versions.noncurrentBytes,
      'versions/noncurrentAgeBytes',
      'versions/noncurrentBytes',
    )
  },
  example: {
    versions: {
      versions: 1,
      deleteMarkers: 0,
      noncurrentBytes: 0,
      versionRanges: new Array<number>(MINIO_VERSION_RANGES.length).fill(0),
      ...hiddenVersionExample(),
    },
  },
  families: versionFamilies,
  write: writeVersions,
  keepsPlace: {
    family: {
      bucket_usage_versions: 'bucket_quota_total_bytes',
      bucket_usage_deletemarkers: 'bucket_quota_total_bytes',
      bucket_noncurrent_bytes: 'bucket_quota_total_bytes',
      bucket_objects_version_distribution: 'bucket_object_size_bytes',
    },
    property: 'multipart.incomplete',
  },
})
