/*
 * The versions figure's fold step: every entry of a versioned listing, each key's entries together
 * and newest first (src/record/version-listing.ts puts them so), folded into the version counts,
 * the noncurrent bytes, the keys per MinIO version-count range and, with the `hidden` group, the
 * noncurrent versions per age band of how long they have been noncurrent and the expired delete
 * markers. Memory is a few fixed arrays and the key being folded.
 */
import { AgeFold, ageSlot } from '../age/bands.js'
import { checkedSum } from '../limits.js'
import type { FigureFold, ListedObject } from '../types.js'
import { MINIO_VERSION_RANGES, minioVersionSlot } from './ranges.js'

export interface VersionValues {
  versions: number
  deleteMarkers: number
  noncurrentBytes: number
  versionRanges: number[]
  noncurrentAgeBytes?: number[]
  noncurrentAgeVersions?: number[]
  expiredDeleteMarkers?: number
}

/** `nowMs`: the scan's start, which noncurrent ages are measured against; `hidden`: fold them. */
export function versionFold(nowMs: number, hidden: boolean): FigureFold<{ versions: VersionValues }> {
  let versions = 0
  let deleteMarkers = 0
  let noncurrentBytes = 0
  let expiredDeleteMarkers = 0
  const versionRanges = new Array<number>(MINIO_VERSION_RANGES.length).fill(0)
  const noncurrentAges = hidden ? new AgeFold() : undefined
  // The key being folded: how many entries it has, whether its only entry is the `null` version of
  // an unversioned write (MinIO's UNVERSIONED range), whether its newest is a delete marker.
  let folding = false
  let key: string | undefined
  let entries = 0
  let onlyNullVersion = true
  let firstIsDeleteMarker = false
  const keyEnds = () => {
    if (!folding) return
    ;(versionRanges[minioVersionSlot(onlyNullVersion ? 0 : entries)] as number)++
    // "Expired object delete markers": a key whose only entry is a delete marker.
    if (firstIsDeleteMarker && entries === 1) expiredDeleteMarkers++
  }
  return {
    add: (entry: ListedObject) => {
      if (!folding || entry.key !== key) {
        keyEnds()
        folding = true
        key = entry.key
        entries = 0
        onlyNullVersion = true
        firstIsDeleteMarker = entry.isDeleteMarker === true
      }
      entries++
      if (entries > 1 || (entry.versionId !== undefined && entry.versionId !== 'null'))
        onlyNullVersion = false
      versions++
      if (entry.isDeleteMarker) {
        deleteMarkers++
        return
      }
      if (entry.isLatest !== false) return
      noncurrentBytes = checkedSum(noncurrentBytes + entry.size, 'noncurrent bytes')
      noncurrentAges?.add(ageSlot(nowMs, entry.replacedMs ?? Number.NaN), entry.size)
    },
    finish: () => {
      keyEnds()
      folding = false
      return {
        versions: {
          versions,
          deleteMarkers,
          noncurrentBytes,
          versionRanges: [...versionRanges],
          ...(noncurrentAges
            ? {
                noncurrentAgeBytes: [...noncurrentAges.bytes],
                noncurrentAgeVersions: [...noncurrentAges.counts],
                expiredDeleteMarkers,
              }
            : {}),
        },
      }
    },
  }
}
