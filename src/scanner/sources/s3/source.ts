import type { ListObjectVersionsCommandOutput, S3Client } from '@aws-sdk/client-s3'
import {
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
} from '@aws-sdk/client-s3'
import type { Logger } from 'pino'
import { withoutCredentials } from '../../../config/url-credentials.js'
import { UsageAccumulator, VersionAccumulator } from '../../bucket-usage.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../retry.js'
import {
  type BucketUsage,
  type MultipartUsage,
  type ScanRound,
  SourceError,
  type UsageSource,
} from '../types.js'
import { BucketSettingsReader } from './bucket-settings.js'
import { createCheckedClient, type S3ClientOptions, sendClassified } from './client.js'
import { objectSize } from './errors.js'
import { pages } from './pages.js'

export interface S3SourceOptions extends S3ClientOptions {
  /** List versions (ListObjectVersions) instead of current objects only. */
  readonly scanVersions: boolean
  /** S3_BUCKET_SETTINGS, BUCKET_TAG_LABELS: see bucket-settings.ts. */
  readonly bucketSettings?: boolean
  readonly tagLabels?: ReadonlyMap<string, string>
  readonly logger: Logger
  readonly retry?: RetryPolicy
}

/** S3's page size limit; fewer, larger pages are cheaper for store and exporter alike. */
const PAGE_SIZE = 1000

/**
 * Any S3-compatible endpoint, through the AWS SDK. Each bucket is folded page by page from
 * ListObjectsV2 (or ListObjectVersions with SCAN_VERSIONS), plus ListMultipartUploads. A store
 * that answers NotImplemented to an optional call (s3rver, some gateways) is remembered as not
 * supporting it (NotImplemented, or MethodNotAllowed as s3rver answers for versions): those
 * families are omitted, one info line says so, the rest is still measured. The client and its
 * answer checks are in client.ts, the paging and its guards in pages.ts.
 */
export function createS3Source(options: S3SourceOptions): UsageSource {
  return new S3UsageSource(options)
}

type Optional = 'ListObjectVersions' | 'ListMultipartUploads'

interface Marker {
  readonly key: string
  readonly id: string | undefined
}

const sameMarker = (a: Marker, b: Marker) => a.key === b.key && a.id === b.id

/** The page's next key and version (or upload) marker; undefined when it gives no key. */
function marker(key: string | undefined, id: string | undefined): Marker | undefined {
  return key === undefined ? undefined : { key, id }
}

class S3UsageSource implements UsageSource {
  readonly name = 's3'
  readonly id: string
  readonly #client: S3Client
  readonly #options: S3SourceOptions
  readonly #retry: RetryPolicy
  readonly #unsupported = new Set<Optional>()
  readonly #settings: BucketSettingsReader

  constructor(options: S3SourceOptions) {
    this.#options = options
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY
    // Shown in logs and kept in the state file: never with user info from the URL.
    this.id = `s3:${options.endpoint ? withoutCredentials(options.endpoint) : `aws/${options.region}`}`
    this.#client = createCheckedClient(options)
    this.#settings = new BucketSettingsReader({
      client: this.#client,
      logger: options.logger,
      retry: this.#retry,
      settings: options.bucketSettings ?? false,
      tagLabels: options.tagLabels ?? new Map(),
    })
  }

  async beginScan({ signal, fixedBuckets }: { signal: AbortSignal; fixedBuckets?: readonly string[] }) {
    const buckets = fixedBuckets ?? (await this.#listBuckets(signal))
    const round: ScanRound = {
      buckets,
      measure: (bucket, bucketSignal) => this.#measure(bucket, bucketSignal),
    }
    return round
  }

  async close(): Promise<void> {
    this.#client.destroy()
  }

  async #listBuckets(signal: AbortSignal): Promise<string[]> {
    const names: string[] = []
    const listing = pages({
      action: 'ListBuckets',
      request: (token: string | undefined) =>
        this.#send('ListBuckets', signal, (abortSignal) =>
          this.#client.send(new ListBucketsCommand({ MaxBuckets: 10_000, ContinuationToken: token }), {
            abortSignal,
          }),
        ),
      // An empty account still answers <Buckets/> (and its Owner); neither means no listing at all.
      truncated: (page) =>
        page.Buckets === undefined && page.Owner === undefined ? undefined : Boolean(page.ContinuationToken),
      next: (page) => page.ContinuationToken,
    })
    for await (const page of listing)
      for (const bucket of page.Buckets ?? []) if (bucket.Name) names.push(bucket.Name)
    return names
  }

  async #measure(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    let usage: BucketUsage | undefined
    if (this.#options.scanVersions) {
      usage = await this.#optional('ListObjectVersions', bucket, 'version families omitted', () =>
        this.#foldVersions(bucket, signal),
      )
    }
    usage ??= await this.#foldCurrent(bucket, signal)
    const multipart = await this.#optional('ListMultipartUploads', bucket, 'multipart families omitted', () =>
      this.#countMultipart(bucket, signal),
    )
    const settings = this.#settings.enabled ? await this.#settings.read(bucket, signal) : undefined
    return { ...usage, ...(multipart ? { multipart } : {}), ...(settings ? { settings } : {}) }
  }

  /** Runs an optional call unless the store said it does not implement it; undefined when it does not. */
  async #optional<T>(
    operation: Optional,
    bucket: string,
    consequence: string,
    call: () => Promise<T>,
  ): Promise<T | undefined> {
    if (this.#unsupported.has(operation)) return undefined
    try {
      return await call()
    } catch (error) {
      if (!(error instanceof SourceError && error.kind === 'unsupported')) throw error
      if (!this.#unsupported.has(operation)) {
        this.#unsupported.add(operation)
        this.#options.logger.info(
          { operation, bucket },
          `store does not implement ${operation}: ${consequence}`,
        )
      }
      return undefined
    }
  }

  async #foldCurrent(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    const fold = new UsageAccumulator({ storageClasses: true })
    const action = `ListObjectsV2 ${bucket}`
    const listing = pages({
      action,
      request: (token: string | undefined) =>
        this.#send(action, signal, (abortSignal) =>
          this.#client.send(
            new ListObjectsV2Command({ Bucket: bucket, MaxKeys: PAGE_SIZE, ContinuationToken: token }),
            { abortSignal },
          ),
        ),
      truncated: (page) => page.IsTruncated,
      next: (page) => page.NextContinuationToken,
    })
    for await (const page of listing) {
      for (const object of page.Contents ?? []) {
        const size = objectSize(object.Size, action)
        fold.add(size, object.LastModified?.getTime() ?? Number.NaN, object.StorageClass)
      }
    }
    return fold.finish()
  }

  /**
   * Versions come sorted by key, so one key's history is contiguous, but it may straddle pages: the
   * page's last key (NextKeyMarker) is carried into the next page before it is counted. Memory is
   * one page's keys at most.
   */
  async #foldVersions(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    const fold = new UsageAccumulator({ storageClasses: true })
    const versions = new VersionAccumulator()
    const action = `ListObjectVersions ${bucket}`
    let carried: KeyHistory | undefined
    const listing = pages<ListObjectVersionsCommandOutput, Marker>({
      action,
      request: (position) =>
        this.#send(action, signal, (abortSignal) =>
          this.#client.send(
            new ListObjectVersionsCommand({
              Bucket: bucket,
              MaxKeys: PAGE_SIZE,
              KeyMarker: position?.key,
              VersionIdMarker: position?.id,
            }),
            { abortSignal },
          ),
        ),
      truncated: (page) => page.IsTruncated,
      next: (page) => marker(page.NextKeyMarker, page.NextVersionIdMarker),
      same: sameMarker,
    })
    for await (const page of listing) {
      const histories = new Map<string, KeyHistory>()
      if (carried) histories.set(carried.key, carried)
      for (const version of page.Versions ?? []) {
        const isLatest = version.IsLatest === true
        const size = objectSize(version.Size, action)
        versions.addVersion({ isLatest, size })
        if (isLatest) fold.add(size, version.LastModified?.getTime() ?? Number.NaN, version.StorageClass)
        noteEntry(histories, version.Key ?? '', version.VersionId)
      }
      for (const deleteMarker of page.DeleteMarkers ?? []) {
        versions.addDeleteMarker()
        noteEntry(histories, deleteMarker.Key ?? '', deleteMarker.VersionId)
      }
      carried = undefined
      if (page.IsTruncated && page.NextKeyMarker !== undefined) {
        carried = histories.get(page.NextKeyMarker)
        histories.delete(page.NextKeyMarker)
      }
      for (const history of histories.values()) versions.addKey(history.entries, history.onlyNullVersion)
    }
    return { ...fold.finish(), versions: versions.finish() }
  }

  async #countMultipart(bucket: string, signal: AbortSignal): Promise<MultipartUsage> {
    let incomplete = 0
    let oldestMs = Number.POSITIVE_INFINITY
    const action = `ListMultipartUploads ${bucket}`
    const listing = pages({
      action,
      request: (position: Marker | undefined) =>
        this.#send(action, signal, (abortSignal) =>
          this.#client.send(
            new ListMultipartUploadsCommand({
              Bucket: bucket,
              MaxUploads: PAGE_SIZE,
              KeyMarker: position?.key,
              UploadIdMarker: position?.id,
            }),
            { abortSignal },
          ),
        ),
      truncated: (page) => page.IsTruncated,
      next: (page) => marker(page.NextKeyMarker, page.NextUploadIdMarker),
      same: sameMarker,
    })
    for await (const page of listing) {
      for (const upload of page.Uploads ?? []) {
        incomplete++
        const initiated = upload.Initiated?.getTime()
        if (initiated !== undefined && initiated < oldestMs) oldestMs = initiated
      }
    }
    return Number.isFinite(oldestMs)
      ? { incomplete, oldestInitiatedSeconds: oldestMs / 1000 }
      : { incomplete }
  }

  #send<T>(action: string, signal: AbortSignal, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return sendClassified(action, signal, this.#retry, call)
  }
}

interface KeyHistory {
  readonly key: string
  entries: number
  onlyNullVersion: boolean
}

function noteEntry(histories: Map<string, KeyHistory>, key: string, versionId: string | undefined): void {
  const history = histories.get(key)
  if (history) {
    history.entries++
    history.onlyNullVersion = false
  } else {
    histories.set(key, { key, entries: 1, onlyNullVersion: versionId === undefined || versionId === 'null' })
  }
}
