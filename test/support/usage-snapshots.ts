import { UsageAccumulator, VersionAccumulator } from '../../src/scanner/bucket-usage.js'
import { MINIO_VERSION_RANGES } from '../../src/scanner/size-ranges.js'
import { type BucketRecord, freezeSnapshot, type UsageSnapshot } from '../../src/scanner/snapshot.js'
import type { BucketUsage } from '../../src/scanner/sources/types.js'

/**
 * Snapshots with every usage family, made the way a scan makes them: generated objects folded by
 * the scanner's own accumulators, plus versions, multipart uploads and quotas. The objects are
 * kept, so an independent exporter (prom-client's histogram) can observe them one by one.
 */
export interface GeneratedObject {
  readonly size: number
  readonly modifiedMs: number
  readonly storageClass: string
}

export interface GeneratedSnapshot {
  readonly snapshot: UsageSnapshot
  /** The current objects behind each bucket's figures (none for a bucket never measured). */
  readonly objects: ReadonlyMap<string, readonly GeneratedObject[]>
}

export interface SnapshotOptions {
  /** Bucket names, or how many (`bucket-00000`, ...). */
  readonly buckets: number | readonly string[]
  readonly objectsPerBucket: number
  readonly sourceName?: string
  readonly sourceId?: string
  readonly completedAtMs?: number
  readonly seed?: number
}

const STORAGE_CLASSES = ['STANDARD', 'STANDARD_IA', 'GLACIER'] as const
const DAY_MS = 86_400_000
/** 2026-01-01T00:00:00Z: a fixed origin, so generated snapshots do not depend on the clock. */
const ORIGIN_MS = Date.UTC(2026, 0, 1)

/**
 * Buckets with sizes from empty to beyond the histogram's last bound, a few storage classes,
 * versions and delete markers, incomplete uploads and quotas on some; every 97th bucket failed its
 * last scan (figures kept from the one before), every 211th was never measured.
 */
export function generateSnapshot(options: SnapshotOptions): GeneratedSnapshot {
  const random = mulberry32(options.seed ?? 1)
  const names =
    typeof options.buckets === 'number'
      ? Array.from({ length: options.buckets }, (_, index) => `bucket-${String(index).padStart(5, '0')}`)
      : options.buckets
  const objects = new Map<string, GeneratedObject[]>()
  const records: BucketRecord[] = names.map((name, index) => {
    const duration = Math.round(random() * 5000) / 1000
    if (index % 211 === 7) return { name, scanSuccess: false, scanDurationSeconds: duration }
    const bucketObjects = Array.from({ length: options.objectsPerBucket }, () => generateObject(random))
    objects.set(name, bucketObjects)
    return {
      name,
      usage: bucketUsage(bucketObjects, index, random),
      scanSuccess: index % 97 !== 5,
      scanDurationSeconds: duration,
      lastSuccessSeconds: (ORIGIN_MS + index * 1000) / 1000,
    }
  })
  const snapshot = freezeSnapshot({
    sourceName: options.sourceName ?? 's3',
    sourceId: options.sourceId ?? 's3:http://127.0.0.1:9000',
    sourceUp: true,
    completedAtMs: options.completedAtMs ?? ORIGIN_MS + DAY_MS,
    // A scan of a minute: every family of the last scan is present.
    startedAtMs: (options.completedAtMs ?? ORIGIN_MS + DAY_MS) - 60_000,
    buckets: [...records].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  })
  return { snapshot, objects }
}

function generateObject(random: () => number): GeneratedObject {
  // Log-uniform sizes from 1 byte to 1 TiB (past the last bound, 256 GiB), some empty.
  const size = random() < 0.05 ? 0 : Math.floor(2 ** (random() * 40))
  return {
    size,
    modifiedMs: ORIGIN_MS - Math.floor(random() * 365 * DAY_MS),
    storageClass: STORAGE_CLASSES[Math.floor(random() * STORAGE_CLASSES.length)] as string,
  }
}

function bucketUsage(
  bucketObjects: readonly GeneratedObject[],
  index: number,
  random: () => number,
): BucketUsage {
  const fold = new UsageAccumulator({ storageClasses: true })
  const versions = new VersionAccumulator()
  for (const object of bucketObjects) {
    fold.add(object.size, object.modifiedMs, object.storageClass)
    versions.addVersion({ isLatest: true, size: object.size })
    const older = random() < 0.3 ? Math.floor(random() * 20) : 0
    for (let version = 0; version < older; version++) {
      versions.addVersion({ isLatest: false, size: Math.floor(random() * 1e6) })
    }
    versions.addKey(older + 1, older === 0 && random() < 0.5)
  }
  // Keys whose latest entry is a delete marker: no current object.
  const deleted = Math.floor(random() * 3)
  for (let key = 0; key < deleted; key++) {
    versions.addDeleteMarker()
    versions.addVersion({ isLatest: false, size: 100 })
    versions.addKey(2, false)
  }
  const incomplete = Math.floor(random() * 3)
  const usage = fold.finish()
  const versionUsage = versions.finish()
  if (versionUsage.versionRanges.length !== MINIO_VERSION_RANGES.length) throw new Error('version ranges')
  return {
    ...usage,
    versions: versionUsage,
    multipart:
      incomplete > 0
        ? { incomplete, oldestInitiatedSeconds: (ORIGIN_MS - incomplete * DAY_MS) / 1000 }
        : { incomplete },
    ...(index % 3 === 0 ? { quotaBytes: 2 ** 40 } : {}),
    // What an fs walk could not read; the family appears only where a source reports it.
    ...(index % 5 === 0 ? { unreadableEntries: index % 3 } : {}),
  }
}

/** A small seeded PRNG: the same snapshot on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
