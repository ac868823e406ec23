/**
 * An inventory's rows folded as a listing's entries are, through the same folds: current objects
 * into a UsageAccumulator, every version and delete marker (with SCAN_VERSIONS and an inventory
 * of versions) through the VersionListingFold, a batch as a page. Rows come sorted by key, as
 * AWS writes them: a key's history may straddle two batches (or two files), so the last key of
 * each batch is carried into the next, as a listing's last key is into its next page.
 */
import { type BucketUsage, UsageAccumulator, type UsageFoldOptions } from '../../../record/bucket-usage.js'
import { type VersionEntry, VersionListingFold } from '../../../record/version-listing.js'
import type { InventoryRow } from './rows.js'

export interface InventoryFoldOptions extends UsageFoldOptions {
  /** Fold every version and delete marker (SCAN_VERSIONS, and an inventory of versions). */
  readonly versions: boolean
  readonly hidden?: boolean | undefined
  /** The label of a key's prefix, when prefixes are measured. */
  readonly prefixOf?: ((key: string) => string) | undefined
}

export class InventoryFold {
  readonly #current: UsageAccumulator | undefined
  readonly #versions: VersionListingFold | undefined
  readonly #prefixOf: ((key: string) => string) | undefined
  #rows = 0

  constructor(options: InventoryFoldOptions) {
    this.#prefixOf = options.prefixOf
    if (options.versions) this.#versions = new VersionListingFold(options)
    else this.#current = new UsageAccumulator(options)
  }

  /** Rows folded so far. */
  get rows(): number {
    return this.#rows
  }

  add(rows: readonly InventoryRow[]): void {
    this.#rows += rows.length
    const current = this.#current
    if (current) {
      for (const row of rows) {
        // An inventory of versions folded for current objects only: the latest of each key.
        if (!row.isLatest || row.isDeleteMarker || row.size === undefined) continue
        current.add({
          size: row.size,
          modifiedMs: row.modifiedMs,
          storageClass: row.storageClass,
          prefix: this.#prefixOf?.(row.key),
        })
      }
      return
    }
    const versions: VersionEntry[] = []
    const markers: VersionEntry[] = []
    for (const row of rows) (row.isDeleteMarker ? markers : versions).push(row)
    this.#versions?.addPage(versions, markers, rows.at(-1)?.key)
  }

  finish(): BucketUsage {
    return (this.#versions ?? (this.#current as UsageAccumulator)).finish()
  }
}
