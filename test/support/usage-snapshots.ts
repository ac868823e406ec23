import {
  type BucketSettings,
  LIFECYCLE_STATES,
  OBJECT_LOCK_STATES,
  VERSIONING_STATES,
} from '../../src/figures/info/index.js'
import { ROOT_PREFIX } from '../../src/figures/prefixes/labels.js'
import type { UsageLog } from '../../src/figures/usage-log/index.js'
import { MINIO_VERSION_RANGES } from '../../src/figures/versions/ranges.js'
import { type ListedObject, UsageAccumulator, withTopPrefixes } from '../../src/record/bucket-usage.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import type { BucketUsage, UserScan } from '../../src/sources/types.js'
import { deepFreeze } from './deep-freeze.js'

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
  /** Fold bytes per prefix too (PREFIX_TOP_K=3), objects spread over GENERATED_PREFIXES and `_root`. */
  readonly prefixes?: boolean
}

/** Prefixes of generated objects (an odd one the writer must escape); every fifth object is at the top. */
export const GENERATED_PREFIXES = ['logs/', 'backups/', 'we "odd"\\ one/', 'media/'] as const
const GENERATED_TOP_K = 3

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
      usage: bucketUsage(bucketObjects, index, random, options.prefixes === true),
      scanSuccess: index % 97 !== 5,
      scanDurationSeconds: duration,
      lastSuccessSeconds: (ORIGIN_MS + index * 1000) / 1000,
      // Some big buckets keep per-range subtotals (issue 25): their summary's families.
      ...(index % 13 === 3
        ? {
            ranges: {
              ranges: 1 + (index % 50),
              dirty: index % 3,
              relistedRatio: (index % 7) / 7,
              oldestListedSeconds: (ORIGIN_MS + index * 500) / 1000,
            },
          }
        : {}),
    }
  })
  const snapshot = deepFreeze({
    sourceName: options.sourceName ?? 's3',
    sourceId: options.sourceId ?? 's3:http://127.0.0.1:9000',
    sourceUp: true,
    completedAtMs: options.completedAtMs ?? ORIGIN_MS + DAY_MS,
    // A scan of a minute: every family of the last scan is present.
    startedAtMs: (options.completedAtMs ?? ORIGIN_MS + DAY_MS) - 60_000,
    buckets: [...records].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    users: GENERATED_USERS,
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
  prefixes: boolean,
): BucketUsage {
  // A versioned listing's fold: each key's entries together, newest first.
  const fold = new UsageAccumulator({
    storageClasses: true,
    nowMs: ORIGIN_MS,
    prefixTopK: prefixes ? GENERATED_TOP_K : undefined,
    versions: true,
  })
  for (const [position, object] of bucketObjects.entries()) {
    // From the position, not the generator: the other figures stay what they were without prefixes.
    const prefix = position % 5 === 4 ? ROOT_PREFIX : GENERATED_PREFIXES[(position + index) % 4]
    const key = `k${position}`
    const older = random() < 0.3 ? Math.floor(random() * 20) : 0
    const noncurrent: ListedObject[] = []
    for (let version = 0; version < older; version++) {
      // Each older version replaced by the next newer one, a week apart.
      const replacedMs = object.modifiedMs - version * 7 * DAY_MS
      noncurrent.push({
        key,
        versionId: `v${version}`,
        isLatest: false,
        size: Math.floor(random() * 1e6),
        modifiedMs: replacedMs,
        replacedMs,
      })
    }
    const versionId = older === 0 && random() < 0.5 ? 'null' : 'latest'
    fold.add({ ...object, prefix, key, versionId, isLatest: true })
    for (const entry of noncurrent) fold.add(entry)
  }
  // Keys whose latest entry is a delete marker: no current object.
  const deleted = Math.floor(random() * 3)
  for (let key = 0; key < deleted; key++) {
    fold.add({
      key: `d${key}`,
      versionId: 'dm',
      isLatest: true,
      isDeleteMarker: true,
      size: 0,
      modifiedMs: ORIGIN_MS,
    })
    const replacedMs = ORIGIN_MS - key * 40 * DAY_MS
    fold.add({
      key: `d${key}`,
      versionId: 'v',
      isLatest: false,
      size: 100,
      modifiedMs: replacedMs,
      replacedMs,
    })
  }
  // A delete marker with nothing behind it, in every other bucket.
  if (index % 2 === 0) {
    fold.add({
      key: 'x',
      versionId: 'dm',
      isLatest: true,
      isDeleteMarker: true,
      size: 0,
      modifiedMs: ORIGIN_MS,
    })
  }
  const incomplete = Math.floor(random() * 3)
  const usage = withTopPrefixes(fold.finish(), GENERATED_TOP_K)
  if (usage.versions?.versionRanges.length !== MINIO_VERSION_RANGES.length) throw new Error('version ranges')
  return {
    ...usage,
    // Uploads started 1, 2... days before the origin, 5 MiB of parts each, the last one unsized.
    multipart: {
      incomplete,
      ...(incomplete > 0 ? { oldestInitiatedSeconds: (ORIGIN_MS - incomplete * DAY_MS) / 1000 } : {}),
      bytes: Math.max(0, incomplete - 1) * 5 * 2 ** 20,
      unsized: Math.min(incomplete, 1),
      stale: 0,
      staleBytes: 0,
    },
    ...(index % 3 === 0 ? { quotaBytes: 2 ** 40 } : {}),
    // What an fs walk could not read; the family appears only where a source reports it.
    ...(index % 5 === 0 ? { unreadableEntries: index % 3 } : {}),
    ...(index % 4 === 0 ? { settings: bucketSettings(index) } : {}),
    // rgw's index fill: 11 shards, RGW_SAFE_MAX_OBJECTS_PER_SHARD 102,400.
    ...(index % 6 === 0
      ? {
          index: {
            shards: 11,
            objectsPerShard: index * 30_000,
            fillRatio: (index * 30_000) / 102_400,
            fillStatus: index === 0 ? ('OK' as const) : ('OVER' as const),
          },
          usageLog: usageLog(index),
        }
      : {}),
  }
}

/** rgw's per-user part: a user with an enabled quota, one of a tenant without, two left out. */
const GENERATED_USERS: UserScan = {
  users: [
    {
      uid: 'alice',
      tenant: '',
      bytes: 5 * 2 ** 30,
      objects: 1200,
      quotaMaxBytes: 2 ** 40,
      quotaMaxObjects: 1e6,
    },
    { uid: 'bob "b"\\', tenant: 'acme', bytes: 777, objects: 1 },
  ],
  omitted: 2,
}

/** rgw's usage log counters of a bucket: two categories, figures from its index. */
function usageLog(index: number): UsageLog {
  const put = { ops: index + 3, successfulOps: index + 2, bytesSent: 0, bytesReceived: index * 1000 }
  const get = { ops: 2 * index, successfulOps: 2 * index, bytesSent: index * 5000, bytesReceived: 0 }
  return {
    totals: { put_obj: put, get_obj: get },
    recent: [{ epoch: ORIGIN_MS / 1000, categories: { put_obj: put } }],
  }
}

/** bucket_info and bucket_tag_info for every fourth bucket, with values that need escaping. */
function bucketSettings(index: number): BucketSettings {
  return {
    owner: index % 8 === 0 ? 'acme$owner "a\\b"' : `user-${index % 3}`,
    tenant: index % 8 === 0 ? 'acme' : '',
    versioning: VERSIONING_STATES[index % VERSIONING_STATES.length] as BucketSettings['versioning'],
    objectLock: OBJECT_LOCK_STATES[
      Math.floor(index / 4) % OBJECT_LOCK_STATES.length
    ] as BucketSettings['objectLock'],
    lifecycle: LIFECYCLE_STATES[index % LIFECYCLE_STATES.length] as BucketSettings['lifecycle'],
    tags: index % 12 === 0 ? { team: 'storage\ncore', cost_center: `cc-${index}` } : {},
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
