/**
 * Which buckets this exporter measures: BUCKETS_INCLUDE / BUCKETS_EXCLUDE glob patterns, then
 * SHARD=i/n, a stable hash that gives every bucket to exactly one of n replicas. The variables are
 * parsed by the configuration (src/config/bucket-selection.ts); this applies them.
 */
import type { Glob, Shard } from '../config/bucket-selection.js'

/**
 * FNV-1a (32 bits) of the name's UTF-8 bytes: stable across versions, platforms and restarts, so
 * a bucket stays with the same replica; documented so operators can compute it themselves.
 */
export function shardHash(name: string): number {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

export function shardOf(name: string, count: number): number {
  return shardHash(name) % count
}

export interface BucketFilterOptions {
  /** BUCKETS_INCLUDE: when non-empty, a bucket must match one of these. */
  readonly include: readonly Glob[]
  /** BUCKETS_EXCLUDE: a bucket matching one of these is skipped (wins over include). */
  readonly exclude: readonly Glob[]
  readonly shard?: Shard | undefined
}

export type BucketFilter = (name: string) => boolean

export function createBucketFilter(options: BucketFilterOptions): BucketFilter {
  const { include, exclude, shard } = options
  return (name) =>
    (include.length === 0 || include.some((glob) => glob.test(name))) &&
    !exclude.some((glob) => glob.test(name)) &&
    (shard === undefined || shardOf(name, shard.count) === shard.index)
}

/** The filter described by the configuration's variables (already validated at start-up). */
