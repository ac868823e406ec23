import type { Logger } from 'pino'
import type { PrefixSettings } from '../../figures/prefixes/labels.js'
import type { RetryPolicy } from '../retry.js'
import type { S3ClientOptions } from './client.js'
import type { InventoryOptions } from './inventory/setup.js'

/** What the s3 source is given (source.ts), from the settings (index.ts). */
export interface S3SourceOptions extends S3ClientOptions {
  /** List versions (ListObjectVersions) instead of current objects only. */
  readonly scanVersions: boolean
  /** Incomplete multipart uploads sized (ListParts) per bucket and scan. */
  readonly multipartPartsMaxUploads?: number
  /** An upload initiated at least this many days before the scan started is stale. */
  readonly multipartStaleDays?: number
  /** PREFIX_*: bytes per key prefix, folded from the same listing; undefined when off. */
  readonly prefixes?: PrefixSettings | undefined
  /** The `age` group: age bands of current objects, and per storage class (default true). */
  readonly ages?: boolean
  /**
   * The `hidden` group (default true): noncurrent ages, expired delete markers, stale uploads and
   * the bytes of incomplete uploads; off, no ListParts request is made.
   */
  readonly hidden?: boolean
  /**
   * Incomplete uploads listed (ListMultipartUploads), for the `multipart` group and `hidden`'s
   * upload bytes (default true); off, the record has no multipart part and no request is made.
   */
  readonly uploads?: boolean
  /** S3_BUCKET_SETTINGS, BUCKET_TAG_LABELS: see bucket-settings.ts. */
  readonly bucketSettings?: boolean
  readonly tagLabels?: ReadonlyMap<string, string>
  /** S3_LIST_RANGES: key ranges one bucket's listing may be split into (below 2: never split). */
  readonly listRanges?: number
  /** S3_INVENTORY_*: buckets measured from their S3 Inventory (inventory/reader.ts); undefined when off. */
  readonly inventory?: InventoryOptions | undefined
  readonly logger: Logger
  readonly retry?: RetryPolicy
}
