/**
 * How object sizes are bucketed, shared by the fold (counting) and the writers (labelling). Two
 * views are kept because they cannot be derived from each other: MinIO's ranges have exclusive
 * upper bounds (`size < 1 KiB`), Prometheus `le` bounds are inclusive.
 */

const KIB = 1024
const MIB = 1024 * KIB

/**
 * Upper bounds of the `bucket_object_size_bytes` histogram: 1 KiB x 4^k, from 1 KiB to 256 GiB
 * (15 bounds, then +Inf). Powers of 4 keep the series count modest (18 per bucket with _sum and
 * _count) while every step is a factor 4, so histogram_quantile is within that factor anywhere
 * from small objects to multi-gigabyte backups; 1 KiB, 64 KiB, 1 MiB and 64 MiB coincide with MinIO
 * boundaries.
 */
export const OBJECT_SIZE_BOUNDS: readonly number[] = Array.from({ length: 15 }, (_, k) => KIB * 4 ** k)

/** Index of the histogram slot holding `size`: the first bound >= size, or bounds.length for +Inf. */
export function sizeBoundSlot(size: number): number {
  let slot = 0
  while (slot < OBJECT_SIZE_BOUNDS.length && size > (OBJECT_SIZE_BOUNDS[slot] as number)) slot++
  return slot
}

/**
 * MinIO's disjoint size ranges, in its order, each holding sizes below `below` (exclusive bound).
 * MinIO also reports `BETWEEN_1024B_AND_1_MB`, the sum of the four ranges from 1 KiB to 1 MiB;
 * that aggregate is added when writing (MINIO_SIZE_AGGREGATE), not counted.
 */
export const MINIO_SIZE_RANGES: ReadonlyArray<{ readonly name: string; readonly below: number }> = [
  { name: 'LESS_THAN_1024_B', below: KIB },
  { name: 'BETWEEN_1024_B_AND_64_KB', below: 64 * KIB },
  { name: 'BETWEEN_64_KB_AND_256_KB', below: 256 * KIB },
  { name: 'BETWEEN_256_KB_AND_512_KB', below: 512 * KIB },
  { name: 'BETWEEN_512_KB_AND_1_MB', below: MIB },
  { name: 'BETWEEN_1_MB_AND_10_MB', below: 10 * MIB },
  { name: 'BETWEEN_10_MB_AND_64_MB', below: 64 * MIB },
  { name: 'BETWEEN_64_MB_AND_128_MB', below: 128 * MIB },
  { name: 'BETWEEN_128_MB_AND_512_MB', below: 512 * MIB },
  { name: 'GREATER_THAN_512_MB', below: Number.POSITIVE_INFINITY },
]

/** MinIO's aggregate range: its name, where it is listed, and the disjoint ranges it sums. */
const MINIO_SIZE_AGGREGATE = { name: 'BETWEEN_1024B_AND_1_MB', after: 4, from: 1, to: 4 } as const

export function minioSizeSlot(size: number): number {
  let slot = 0
  while (size >= (MINIO_SIZE_RANGES[slot] as { below: number }).below) slot++
  return slot
}

/** MinIO's eleven `range` values and counts, in MinIO's order, the 1 KiB-1 MiB aggregate in its place. */
export function forEachMinioSizeRange(
  counts: readonly number[],
  each: (range: string, count: number) => void,
): void {
  MINIO_SIZE_RANGES.forEach(({ name: range }, slot) => {
    each(range, counts[slot] ?? 0)
    if (slot === MINIO_SIZE_AGGREGATE.after) {
      let aggregate = 0
      for (let member = MINIO_SIZE_AGGREGATE.from; member <= MINIO_SIZE_AGGREGATE.to; member++) {
        aggregate += counts[member] ?? 0
      }
      each(MINIO_SIZE_AGGREGATE.name, aggregate)
    }
  })
}
