/**
 * A bucket measured from its newest complete S3 Inventory (S3_INVENTORY_DESTINATION) instead of
 * a listing: its manifest found and checked (discovery.ts, manifest.ts), each data file streamed
 * and checked against it (size, MD5), its rows folded as a listing's entries are
 * (inventory-fold.ts), the figures as of the inventory's creation time. A manifest already folded
 * (the bucket's last figures name it and its MD5) is not read again: those figures stand. No
 * request is sent to the source bucket itself.
 */
import type { Readable } from 'node:stream'
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { keyPrefix, type PrefixSettings } from '../../../figures/prefixes/labels.js'
import { type BucketUsage, withTopPrefixes } from '../../../record/bucket-usage.js'
import { SourceError } from '../../types.js'
import type { SendRequest } from '../client.js'
import { csvRows } from './csv-file.js'
import {
  bucketsWithInventory,
  type FoundInventory,
  findInventory,
  type InventoryDestination,
  type InventoryRequests,
} from './discovery.js'
import { InventoryError } from './inventory-error.js'
import { InventoryFold } from './inventory-fold.js'
import { type InventoryFile, type InventoryManifest, parseManifest } from './manifest.js'
import { parquetRows } from './parquet-file.js'
import { type InventoryPiece, RangedInventoryFold } from './ranged-fold.js'
import type { InventoryRow } from './rows.js'

export interface InventorySettings {
  readonly destination: InventoryDestination
  /** S3_INVENTORY_CONFIG_ID: '' for the only one. */
  readonly configuration: string
  /** S3_INVENTORY_MISSING: a bucket without an inventory is listed, or not measured. */
  readonly missing: 'list' | 'skip'
  /** S3_INVENTORY_MAX_INFLATION: a gzip CSV file inflates to at most this many times its size. */
  readonly maxInflation: number
}

export interface InventoryReaderOptions {
  /** A client whose answers may be as large as S3_INVENTORY_MAX_FILE_BYTES. */
  readonly client: S3Client
  readonly settings: InventorySettings
  readonly send: SendRequest
}

/** What the fold measures, as for a listing. */
export interface InventoryFolds {
  readonly versions: boolean
  readonly ages?: boolean | undefined
  readonly hidden?: boolean | undefined
  readonly prefixes?: PrefixSettings | undefined
}

export class InventoryReader {
  readonly #options: InventoryReaderOptions

  constructor(options: InventoryReaderOptions) {
    this.#options = options
  }

  /** Closes the client's connections. */
  close(): void {
    this.#options.client.destroy()
  }

  get skipsOthers(): boolean {
    return this.#options.settings.missing === 'skip'
  }

  /** The buckets the destination holds inventories of. */
  buckets(signal: AbortSignal): Promise<Set<string>> {
    return destinationErrors(() => bucketsWithInventory(this.#requests(signal)))
  }

  /**
   * The bucket's figures from its newest complete inventory; undefined when it has none (it is
   * then listed). `previous`: its last figures, which stand when they came from the same manifest.
   */
  measure(
    bucket: string,
    signal: AbortSignal,
    previous: BucketUsage | undefined,
    folds: InventoryFolds,
  ): Promise<BucketUsage | undefined> {
    return destinationErrors(async () => {
      const requests = this.#requests(signal)
      const newest = await this.#newest(requests, bucket)
      if (newest === undefined) return undefined
      const versions = folds.versions && newest.manifest.versions
      if (previous && alreadyFolded(previous, newest.found, { ...folds, versions })) return previous
      const fold = this.#fold(newest.manifest, folds, versions)
      const bytes = await this.#read(requests, newest.manifest, folds, fold, false)
      let usage = fold.finish()
      if (folds.prefixes) usage = withTopPrefixes(usage, folds.prefixes.topK)
      return { ...usage, inventory: inventoryPart(newest, bytes, fold.rows) }
    })
  }

  /**
   * The bucket's newest inventory folded per key range (a bucket that keeps subtotals): into
   * `ranged.throughs`' ranges, or ranges cut from its rows when undefined. `same` when `previous`
   * (with `ranged.kept`: ranges of it are kept) came from this very manifest: nothing is read;
   * `whole` when it cannot give the ranges' figures (versions asked of an inventory of current
   * objects only); undefined when the bucket has none.
   */
  measureRanged(
    bucket: string,
    signal: AbortSignal,
    previous: BucketUsage | undefined,
    folds: InventoryFolds,
    ranged: {
      readonly throughs: readonly string[] | undefined
      readonly pieceEntries: number
      readonly kept: boolean
    },
  ): Promise<RangedInventory | undefined> {
    return destinationErrors(async (): Promise<RangedInventory | undefined> => {
      const requests = this.#requests(signal)
      const newest = await this.#newest(requests, bucket)
      if (newest === undefined) return undefined
      if (folds.versions && !newest.manifest.versions) return { whole: true }
      if (ranged.kept && previous?.inventory && alreadyFolded(previous, newest.found, folds))
        return { same: previous.inventory }
      const fold = new RangedInventoryFold(
        () => this.#fold(newest.manifest, folds, folds.versions),
        ranged.throughs,
        ranged.pieceEntries,
      )
      const bytes = await this.#read(requests, newest.manifest, folds, fold, true)
      return { pieces: fold.finish(), inventory: inventoryPart(newest, bytes, fold.rows) }
    })
  }

  /** The bucket's newest complete inventory and its manifest checked; undefined when it has none. */
  async #newest(requests: InventoryRequests, bucket: string): Promise<Newest | undefined> {
    const found = await findInventory(requests, bucket, this.#options.settings.configuration)
    if (found === undefined) {
      if (this.skipsOthers) throw new InventoryError('no inventory of the bucket (S3_INVENTORY_MISSING=skip)')
      return undefined
    }
    return { found, manifest: parseManifest(found.manifestText, found.folder, bucket) }
  }

  #fold(manifest: InventoryManifest, folds: InventoryFolds, versions: boolean): InventoryFold {
    return new InventoryFold({
      versions,
      storageClasses: true,
      // Ages as of the inventory: its figures are a picture of the bucket then.
      nowMs: manifest.createdMs,
      ages: folds.ages,
      hidden: folds.hidden,
      prefixTopK: folds.prefixes?.topK,
      prefixOf: folds.prefixes && ((key: string) => keyPrefix(key, folds.prefixes as PrefixSettings)),
    })
  }

  /** Every data file's rows into `fold`; the bytes read. `keys`: rows need their keys whatever is folded. */
  async #read(
    requests: InventoryRequests,
    manifest: InventoryManifest,
    folds: InventoryFolds,
    fold: { add(rows: readonly InventoryRow[]): void },
    keys: boolean,
  ): Promise<number> {
    let bytes = 0
    for (const file of manifest.files) {
      for await (const rows of this.#rows(
        requests,
        file,
        manifest,
        keys || Boolean(folds.prefixes) || folds.versions,
      ))
        fold.add(rows)
      bytes += file.size
    }
    return bytes
  }

  async *#rows(
    requests: InventoryRequests,
    file: InventoryFile,
    manifest: InventoryManifest,
    keys: boolean,
  ): AsyncGenerator<InventoryRow[]> {
    const { client, destination, signal } = requests
    const action = `GetObject ${destination.bucket}/${file.key}`
    const body = await requests.send(action, signal, async (abortSignal) => {
      const answer = await client.send(new GetObjectCommand({ Bucket: destination.bucket, Key: file.key }), {
        abortSignal,
      })
      if (!answer.Body) throw new InventoryError(`${file.key}: answered without a body`)
      return answer.Body as Readable
    })
    const reading = {
      file,
      columns: manifest.columns,
      keys,
      maxInflation: this.#options.settings.maxInflation,
    }
    yield* manifest.format === 'CSV' ? csvRows(body, reading) : parquetRows(body, reading)
  }

  #requests(signal: AbortSignal): InventoryRequests {
    const { client, settings, send } = this.#options
    return { client, destination: settings.destination, signal, send }
  }
}

/**
 * Whether `previous` are the figures of this very manifest, folded for what is measured now (a
 * restart with other BUCKET_METRICS groups or SCAN_VERSIONS folds it again).
 */
function alreadyFolded(previous: BucketUsage, found: FoundInventory, folds: InventoryFolds): boolean {
  const last = previous.inventory
  return (
    last?.manifest === found.manifestKey &&
    last.manifestMd5 === found.manifestMd5 &&
    (previous.versions !== undefined) === folds.versions &&
    (previous.prefixes !== undefined) === (folds.prefixes !== undefined) &&
    (previous.ageBytes !== undefined) === (folds.ages ?? true) &&
    (previous.versions?.noncurrentAgeBytes !== undefined) === (folds.versions && (folds.hidden ?? true))
  )
}

interface Newest {
  readonly found: FoundInventory
  readonly manifest: InventoryManifest
}

/** What the record says of the inventory its figures come from. */
export type InventoryPart = NonNullable<BucketUsage['inventory']>

function inventoryPart({ found, manifest }: Newest, bytes: number, rows: number): InventoryPart {
  return {
    configuration: found.configuration,
    format: manifest.format,
    manifest: found.manifestKey,
    manifestMd5: found.manifestMd5,
    createdSeconds: manifest.createdMs / 1000,
    files: manifest.files.length,
    bytes,
    rows,
  }
}

/** A bucket's inventory read per key range (InventoryReader.measureRanged). */
export type RangedInventory =
  | { readonly whole: true }
  | { readonly same: InventoryPart }
  | { readonly pieces: readonly InventoryPiece[]; readonly inventory: InventoryPart }

/**
 * The destination's errors as the bucket's failure: a missing key or destination bucket is a
 * broken inventory, never the source bucket gone (which would drop its figures).
 */
async function destinationErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof SourceError && error.kind === 'missing' && !(error instanceof InventoryError)) {
      throw new InventoryError(`the destination answered: ${error.message}`, { cause: error })
    }
    throw error
  }
}
