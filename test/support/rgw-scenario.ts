/**
 * Writes a known set of buckets to an S3 server through the real AWS SDK and keeps a model of what
 * it wrote, from which tests derive the exact figures an exporter must report (never read back
 * from the server under test). Built for Ceph RGW: it needs versioning and multipart listing.
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'

export const KiB = 1024
export const MiB = 1024 * KiB

export interface ModelVersion {
  readonly key: string
  /** Bytes; 0 and `deleteMarker` for a delete marker. */
  readonly size: number
  readonly deleteMarker: boolean
}

export interface ModelUpload {
  readonly key: string
  readonly partSizes: readonly number[]
}

/** What one bucket holds, as written. Versions per key, oldest first (the last one is current). */
export class BucketModel {
  readonly versionsByKey = new Map<string, ModelVersion[]>()
  readonly incompleteUploads: ModelUpload[] = []
  constructor(
    readonly name: string,
    readonly versioned: boolean,
  ) {}

  /** Current objects: keys whose latest version is not a delete marker. */
  get currentSizes(): number[] {
    const sizes: number[] = []
    for (const versions of this.versionsByKey.values()) {
      const latest = versions.at(-1)
      if (latest && !latest.deleteMarker) sizes.push(latest.size)
    }
    return sizes
  }
  get currentObjects(): number {
    return this.currentSizes.length
  }
  get currentBytes(): number {
    return sum(this.currentSizes)
  }
  get allVersions(): ModelVersion[] {
    return [...this.versionsByKey.values()].flat()
  }
  /** Versions, delete markers included (MinIO's bucket_usage_versions). */
  get versionCount(): number {
    return this.allVersions.length
  }
  get deleteMarkers(): number {
    return this.allVersions.filter((version) => version.deleteMarker).length
  }
  get noncurrentBytes(): number {
    let bytes = 0
    for (const versions of this.versionsByKey.values()) bytes += sum(versions.slice(0, -1).map((v) => v.size))
    return bytes
  }
  /** Bytes of every stored version (current and noncurrent). */
  get allVersionBytes(): number {
    return sum(this.allVersions.map((version) => version.size))
  }
  get incompletePartBytes(): number {
    return sum(this.incompleteUploads.flatMap((upload) => upload.partSizes))
  }
  get incompleteParts(): number {
    return this.incompleteUploads.reduce((count, upload) => count + upload.partSizes.length, 0)
  }
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

/** Deterministic bytes (not all zeros, so nothing along the way can compress them away). */
function body(size: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff
  return bytes
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T
      await work(item)
    }
  })
  await Promise.all(workers)
}

/** An S3 client and the model of everything written through it. */
export class ScenarioWriter {
  readonly buckets = new Map<string, BucketModel>()
  #seed = 0
  constructor(readonly s3: S3Client) {}

  async createBucket(name: string, options: { versioned?: boolean } = {}): Promise<BucketModel> {
    await this.s3.send(new CreateBucketCommand({ Bucket: name }))
    if (options.versioned) {
      await this.s3.send(
        new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }),
      )
    }
    const model = new BucketModel(name, options.versioned ?? false)
    this.buckets.set(name, model)
    return model
  }

  /** The model of a bucket this writer created. */
  model(bucket: string): BucketModel {
    const model = this.buckets.get(bucket)
    if (!model) throw new Error(`bucket ${bucket} was not created by this writer`)
    return model
  }

  #record(model: BucketModel, version: ModelVersion): void {
    const versions = model.versionsByKey.get(version.key) ?? []
    if (model.versioned) versions.push(version)
    else versions.splice(0, versions.length, version)
    if (!model.versioned && version.deleteMarker) model.versionsByKey.delete(version.key)
    else model.versionsByKey.set(version.key, versions)
  }

  async put(bucket: string, key: string, size: number): Promise<void> {
    const model = this.model(bucket)
    // A Buffer body: RGW answers 411 to the SDK's default streaming checksum for stream bodies.
    await this.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body(size, this.#seed++) }))
    this.#record(model, { key, size, deleteMarker: false })
  }

  /** DeleteObject without a version: removes the key, or adds a delete marker when versioned. */
  async delete(bucket: string, key: string): Promise<void> {
    const model = this.model(bucket)
    await this.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
    this.#record(model, { key, size: 0, deleteMarker: true })
  }

  /** A multipart upload; completed unless `complete` is false (then it stays incomplete). */
  async multipart(
    bucket: string,
    key: string,
    partSizes: readonly number[],
    complete: boolean,
  ): Promise<void> {
    const model = this.model(bucket)
    const upload = await this.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
    const parts: { PartNumber: number; ETag: string | undefined }[] = []
    for (const [index, size] of partSizes.entries()) {
      const PartNumber = index + 1
      const part = await this.s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: upload.UploadId,
          PartNumber,
          Body: body(size, this.#seed++),
        }),
      )
      parts.push({ PartNumber, ETag: part.ETag })
    }
    if (!complete) {
      model.incompleteUploads.push({ key, partSizes })
      return
    }
    await this.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: upload.UploadId,
        MultipartUpload: { Parts: parts },
      }),
    )
    this.#record(model, { key, size: sum(partSizes), deleteMarker: false })
  }
}

interface ClusterAccess {
  readonly endpoint: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
}

/** The exporter's environment for measuring `cluster` with BUCKETS_SOURCE=`source`. */
export function rgwSourceEnv(
  cluster: ClusterAccess,
  source: 's3' | 'rgw',
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    BUCKETS_SOURCE: source,
    S3_ENDPOINT: cluster.endpoint,
    S3_REGION: cluster.region,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: cluster.accessKeyId,
    S3_SECRET_ACCESS_KEY: cluster.secretAccessKey,
    // Tests and benches trigger scans themselves (scanNow).
    SCAN_INTERVAL_SECONDS: '86400',
    ...extra,
  }
}

export function rgwS3Client(cluster: ClusterAccess): S3Client {
  return new S3Client({
    endpoint: cluster.endpoint,
    region: cluster.region,
    forcePathStyle: true,
    credentials: { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey },
    maxAttempts: 2,
  })
}

/** Keys that need care on the wire: spaces, unicode, characters URL and XML encoding touch. */
export const AWKWARD_KEYS = [
  'with space.txt',
  'dir with space/inner file',
  'ünïcödé/日本語/файл.bin',
  'emoji-😀.txt',
  'percent%20literal',
  'plus+sign',
  'amp&and=equals?query#hash',
  'quote"apostrophe\'',
  'angle<brackets>',
  'tilde~star*paren(1)',
  'trailing-slash-dir/',
  'double//slash',
  'semicolon;comma,colon:',
] as const

/**
 * The standard scenario, one bucket per concern:
 * - `plain`: unversioned, sizes across MinIO's ranges, one overwrite and one delete;
 * - `versioned`: overwrites, a delete marker on a deleted key, a key deleted and written again;
 * - `multipart`: one completed upload and two left incomplete;
 * - `many-keys`: 1,234 keys (past one listing page) including AWKWARD_KEYS;
 * - `empty`.
 */
export async function writeStandardScenario(writer: ScenarioWriter): Promise<void> {
  await writer.createBucket('plain')
  const plainSizes: ReadonlyArray<readonly [string, number]> = [
    ['zero', 0],
    ['tiny', 100],
    ['just-under-1k', 1023],
    ['exactly-1k', 1024],
    ['small', 5000],
    ['over-64k', 64 * KiB + 1],
    ['over-256k', 256 * KiB + 1],
    ['over-512k', 512 * KiB + 1],
    ['exactly-1m', MiB],
    ['over-1m', MiB + 1],
    ['over-10m', 10 * MiB + 1],
  ]
  await inParallel(plainSizes, 4, ([key, size]) => writer.put('plain', key, size))
  await writer.put('plain', 'tiny', 200) // overwrite: 100 -> 200 bytes, no version kept
  await writer.put('plain', 'doomed', 300)
  await writer.delete('plain', 'doomed')

  await writer.createBucket('versioned', { versioned: true })
  await writer.put('versioned', 'report.csv', 1000)
  await writer.put('versioned', 'report.csv', 2000)
  await writer.put('versioned', 'report.csv', 3000)
  await writer.put('versioned', 'gone.bin', 4000)
  await writer.delete('versioned', 'gone.bin')
  await writer.put('versioned', 'back.txt', 50)
  await writer.delete('versioned', 'back.txt')
  await writer.put('versioned', 'back.txt', 70)
  await writer.put('versioned', 'single.txt', 10)

  await writer.createBucket('multipart')
  await writer.multipart('multipart', 'complete.bin', [5 * MiB, 123], true)
  await writer.multipart('multipart', 'abandoned-a.bin', [5 * MiB, 1000], false)
  await writer.multipart('multipart', 'abandoned-b.bin', [4321], false)
  await writer.put('multipart', 'ordinary.txt', 11)

  await writer.createBucket('many-keys')
  const keys = [
    ...AWKWARD_KEYS,
    ...Array.from({ length: 1234 - AWKWARD_KEYS.length }, (_, i) => `k/${String(i).padStart(5, '0')}`),
  ]
  await inParallel(keys, 8, (key) => writer.put('many-keys', key, key.length))

  await writer.createBucket('empty')
}

/** A store a suite started, holding what `write` wrote through `writer`. */
export interface ScenarioStore<C extends ClusterAccess> {
  readonly cluster: C
  readonly writer: ScenarioWriter
  /** When writing began and ended, seconds since the epoch, one wider either side (object times). */
  readonly writtenFrom: number
  readonly writtenTo: number
  /** Closes the writer's client, then stops the store. */
  stop(): Promise<void>
}

/**
 * The suites' set-up against a real store (Ceph RGW, Swift): start it, write the standard scenario
 * (or what `write` writes) through the SDK, and one stop for after() that is safe when start failed.
 */
export async function startScenarioStore<C extends ClusterAccess & { stop(): Promise<void> }>(
  start: () => Promise<C>,
  write: (writer: ScenarioWriter) => Promise<void> = writeStandardScenario,
): Promise<ScenarioStore<C>> {
  const cluster = await start()
  const writer = new ScenarioWriter(rgwS3Client(cluster))
  const stop = async () => {
    writer.s3.destroy()
    await cluster.stop()
  }
  try {
    const writtenFrom = Math.floor(Date.now() / 1000) - 1
    await write(writer)
    const writtenTo = Math.ceil(Date.now() / 1000) + 1
    return { cluster, writer, writtenFrom, writtenTo, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
