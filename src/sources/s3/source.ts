import type { S3Client } from '@aws-sdk/client-s3'
import { withoutCredentials } from '../../config/url-credentials.js'
import { keyPrefix } from '../../figures/prefixes/labels.js'
import { UsageAccumulator, withTopPrefixes } from '../../record/bucket-usage.js'
import { VersionListingFold } from '../../record/version-listing.js'
import type { ListingSlots } from '../listings-in-flight.js'
import { RequestCounter } from '../request-counter.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../retry.js'
import type { RangedUsage, RangesRequest } from '../subtotals.js'
import {
  type BeginScanOptions,
  type BucketUsage,
  type ListingProgress,
  type ScanRound,
  SourceError,
  type UsageSource,
} from '../types.js'
import { type BucketListing, listCurrent, listVersions } from './bucket-listing.js'
import { listBucketNames } from './bucket-names.js'
import { BucketSettingsReader } from './bucket-settings.js'
import { createCheckedClient, type SendRequest, sendClassified } from './client.js'
import type { InventoryReader } from './inventory/reader.js'
import { inventoryReader } from './inventory/setup.js'
import { IgnoredStarts } from './listing-order.js'
import { measureMultipart } from './multipart.js'
import { measureRanges } from './ranged-measure.js'
import type { S3SourceOptions } from './source-options.js'

/** S3_LIST_RANGES's default. */
const DEFAULT_LIST_RANGES = 32
/** Pages a listing runs before it is split: shorter buckets cost no probe request. */
const SPLIT_AFTER_PAGES = 2

/**
 * Any S3-compatible endpoint, through the AWS SDK. Each bucket is folded page by page from
 * ListObjectsV2 (or ListObjectVersions with SCAN_VERSIONS), plus ListMultipartUploads (with the
 * `multipart` or `hidden` group) and, with the
 * `hidden` group, ListParts (multipart.ts). A store
 * that answers NotImplemented to an optional call (s3rver, some gateways) is remembered as not
 * supporting it (NotImplemented, or MethodNotAllowed as s3rver answers for versions): those
 * families are omitted, one info line says so, the rest is still measured. The client and its
 * answer checks are in client.ts, the paging and its guards in pages.ts.
 */
export function createS3Source(options: S3SourceOptions): UsageSource {
  return new S3UsageSource(options)
}

type Optional = 'ListObjectVersions' | 'ListMultipartUploads' | 'ListParts'

/** Defaults of MULTIPART_PARTS_MAX_UPLOADS and MULTIPART_STALE_DAYS. */
const MULTIPART_PARTS_MAX_UPLOADS = 100
const MULTIPART_STALE_DAYS = 7

class S3UsageSource implements UsageSource {
  readonly name = 's3'
  readonly id: string
  readonly #client: S3Client
  readonly #options: S3SourceOptions
  readonly #retry: RetryPolicy
  readonly #unsupported = new Set<Optional>()
  readonly #settings: BucketSettingsReader
  readonly #ignoredStarts = new IgnoredStarts()
  readonly requests = new RequestCounter('s3')
  readonly #inventory: InventoryReader | undefined
  /** Every request to the store, retried and classified (client.ts). */
  readonly #send: SendRequest = (action, signal, call) => sendClassified(action, signal, this.#retry, call)

  constructor(options: S3SourceOptions) {
    this.#options = options
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY
    // Shown in logs and kept in the state file: never with user info from the URL.
    this.id = `s3:${options.endpoint ? withoutCredentials(options.endpoint) : `aws/${options.region}`}`
    this.#client = createCheckedClient({ ...options, counter: this.requests })
    this.#settings = new BucketSettingsReader({
      client: this.#client,
      logger: options.logger,
      retry: this.#retry,
      settings: options.bucketSettings ?? false,
      tagLabels: options.tagLabels ?? new Map(),
    })
    this.#inventory =
      options.inventory && inventoryReader(options, options.inventory, this.requests, this.#send)
  }

  async beginScan(options: BeginScanOptions) {
    const startedMs = options.startedMs ?? Date.now()
    let buckets = options.fixedBuckets ?? (await listBucketNames(this.#client, options.signal, this.#send))
    const inventory = this.#inventory
    if (inventory?.skipsOthers) {
      const withInventory = await inventory.buckets(options.signal)
      buckets = buckets.filter((bucket) => withInventory.has(bucket))
    }
    const previous = options.previous ?? (() => undefined)
    const round: ScanRound = {
      buckets,
      measure: (bucket, bucketSignal, slots, progress) =>
        this.#measure(bucket, bucketSignal, startedMs, slots, progress, previous(bucket)),
      measureRanges: (bucket, bucketSignal, slots, request, progress) =>
        this.#measureRanges(bucket, bucketSignal, startedMs, slots, request, progress, previous(bucket)),
    }
    return round
  }

  async close(): Promise<void> {
    this.#client.destroy()
    this.#inventory?.close()
  }

  async #measure(
    bucket: string,
    signal: AbortSignal,
    startedMs: number,
    slots: ListingSlots | undefined,
    progress: ListingProgress | undefined,
    previous: BucketUsage | undefined,
  ): Promise<BucketUsage> {
    const fromInventory = await this.#fromInventory(bucket, signal, previous)
    if (fromInventory) return fromInventory
    let usage: BucketUsage | undefined
    const listing = this.#listing(bucket, signal, slots, progress)
    if (this.#options.scanVersions) {
      usage = await this.#optional('ListObjectVersions', bucket, 'version families omitted', () =>
        this.#foldVersions(listing, startedMs),
      )
    }
    usage ??= await this.#foldCurrent(listing, startedMs)
    return this.#completed(bucket, signal, startedMs, usage)
  }

  /** A bucket that keeps subtotals (ranged-measure.ts): from its inventory, or its ranges listed. */
  #measureRanges(
    bucket: string,
    signal: AbortSignal,
    startedMs: number,
    slots: ListingSlots | undefined,
    request: RangesRequest,
    progress: ListingProgress | undefined,
    previous: BucketUsage | undefined,
  ): Promise<RangedUsage> {
    const inventory = this.#inventory
    return measureRanges(
      {
        listing: this.#listing(bucket, signal, slots, progress),
        startedMs,
        prefixes: this.#options.prefixes,
        versions: () => this.#listsVersions(),
        objects: () => this.#accumulator(startedMs),
        versionFold: () => this.#versionFold(startedMs),
        listVersions: (list) =>
          this.#optional('ListObjectVersions', bucket, 'version families omitted', list),
        inventory: async (throughs, kept) =>
          inventory?.measureRanged(bucket, signal, previous, this.#inventoryFolds(), {
            throughs,
            kept,
            pieceEntries: Math.max(1, Math.floor(request.sizes.maxEntries / 2)),
          }),
        completed: (listed) => this.#completed(bucket, signal, startedMs, listed),
        withSettings: (usage) => this.#withSettings(bucket, signal, usage),
        whole: () => this.#measure(bucket, signal, startedMs, slots, progress, previous),
      },
      request,
    )
  }

  /** The listing's figures with what is measured whole every round: incomplete uploads, settings. */
  async #completed(bucket: string, signal: AbortSignal, startedMs: number, listed: BucketUsage) {
    let usage = listed
    if (this.#options.prefixes) usage = withTopPrefixes(usage, this.#options.prefixes.topK)
    const multipart =
      this.#options.uploads === false
        ? undefined
        : await this.#optional('ListMultipartUploads', bucket, 'multipart families omitted', () =>
            measureMultipart({
              client: this.#client,
              bucket,
              signal,
              send: this.#send,
              startedMs,
              maxSized: this.#options.multipartPartsMaxUploads ?? MULTIPART_PARTS_MAX_UPLOADS,
              staleDays: this.#options.multipartStaleDays ?? MULTIPART_STALE_DAYS,
              hidden: this.#options.hidden ?? true,
              listParts: !this.#unsupported.has('ListParts'),
              onListPartsUnsupported: () =>
                this.#noteUnsupported('ListParts', bucket, 'multipart byte families omitted'),
            }),
          )
    const settings = this.#settings.enabled ? await this.#settings.read(bucket, signal) : undefined
    return { ...usage, ...(multipart ? { multipart } : {}), ...(settings ? { settings } : {}) }
  }

  /**
   * The bucket's figures from its inventory, its settings read as for a listed bucket; undefined
   * when inventories are off or it has none. No multipart figures: an inventory has no uploads, and
   * no LIST request is sent to the bucket.
   */
  async #fromInventory(bucket: string, signal: AbortSignal, previous: BucketUsage | undefined) {
    const usage = await this.#inventory?.measure(bucket, signal, previous, this.#inventoryFolds())
    return usage && this.#withSettings(bucket, signal, usage)
  }

  /** What an inventory's rows are folded for, as a listing's entries would be. */
  #inventoryFolds() {
    const { ages, hidden, prefixes } = this.#options
    return { versions: this.#listsVersions(), ages, hidden, prefixes }
  }

  /** SCAN_VERSIONS, until the store answers ListObjectVersions as not implemented. */
  #listsVersions(): boolean {
    return this.#options.scanVersions && !this.#unsupported.has('ListObjectVersions')
  }

  /** An inventory's figures with the bucket's settings read now (its last ones and uploads dropped). */
  async #withSettings(bucket: string, signal: AbortSignal, usage: BucketUsage): Promise<BucketUsage> {
    const { settings: _last, multipart: _none, ...figures } = usage
    const settings = this.#settings.enabled ? await this.#settings.read(bucket, signal) : undefined
    return { ...figures, ...(settings ? { settings } : {}) }
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
      this.#noteUnsupported(operation, bucket, consequence)
      return undefined
    }
  }

  /** Remembers that the store does not implement `operation`; says so once. */
  #noteUnsupported(operation: Optional, bucket: string, consequence: string): void {
    if (this.#unsupported.has(operation)) return
    this.#unsupported.add(operation)
    this.#options.logger.info({ operation, bucket }, `store does not implement ${operation}: ${consequence}`)
  }

  async #foldCurrent(listing: BucketListing, nowMs: number) {
    return listCurrent(listing, () => this.#accumulator(nowMs))
  }

  /**
   * Versions come sorted by key, so one key's history is contiguous, but it may straddle pages:
   * the fold (version-listing.ts) carries the page's last key (NextKeyMarker) into the next page.
   * Memory is one page's entries per key range listed at once.
   */
  async #foldVersions(listing: BucketListing, nowMs: number) {
    return listVersions(listing, () => this.#versionFold(nowMs))
  }

  #versionFold(nowMs: number): VersionListingFold {
    const prefixes = this.#options.prefixes
    return new VersionListingFold({
      storageClasses: true,
      nowMs,
      ages: this.#options.ages,
      hidden: this.#options.hidden,
      prefixTopK: prefixes?.topK,
      prefixOf: prefixes && ((key: string) => keyPrefix(key, prefixes)),
    })
  }

  #listing(
    bucket: string,
    signal: AbortSignal,
    slots: ListingSlots | undefined,
    progress: ListingProgress | undefined,
  ): BucketListing {
    const maxRanges = this.#options.listRanges ?? DEFAULT_LIST_RANGES
    return {
      client: this.#client,
      bucket,
      signal,
      slots,
      split: { maxRanges, maxProbes: 2 * maxRanges, afterPages: SPLIT_AFTER_PAGES },
      prefixes: this.#options.prefixes,
      send: this.#send,
      logger: this.#options.logger,
      ignoredStarts: this.#ignoredStarts,
      progress,
    }
  }

  #accumulator(nowMs: number): UsageAccumulator {
    return new UsageAccumulator({
      storageClasses: true,
      nowMs,
      ages: this.#options.ages,
      prefixTopK: this.#options.prefixes?.topK,
    })
  }
}
