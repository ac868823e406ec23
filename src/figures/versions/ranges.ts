/** MinIO's version-count ranges, shared by the fold (counting) and the writers (labelling). */

/** MinIO's version-count ranges; a count belongs to the first range whose `upTo` it does not pass. */
export const MINIO_VERSION_RANGES: ReadonlyArray<{ readonly name: string; readonly upTo: number }> = [
  { name: 'UNVERSIONED', upTo: 0 },
  { name: 'SINGLE_VERSION', upTo: 1 },
  { name: 'BETWEEN_2_AND_10', upTo: 9 },
  { name: 'BETWEEN_10_AND_100', upTo: 99 },
  { name: 'BETWEEN_100_AND_1000', upTo: 999 },
  { name: 'BETWEEN_1000_AND_10000', upTo: 9999 },
  { name: 'GREATER_THAN_10000', upTo: Number.POSITIVE_INFINITY },
]

export function minioVersionSlot(versions: number): number {
  let slot = 0
  while (versions > (MINIO_VERSION_RANGES[slot] as { upTo: number }).upTo) slot++
  return slot
}
