import { SourceError } from '../../types.js'

/**
 * A broken inventory (a missing file, an MD5 that does not match, a truncated gzip, an unknown
 * column, ORC): the bucket fails with this reason and keeps its last good figures. Always
 * `failed`, never `missing`: a data file answered 404 is a broken inventory, not a bucket gone.
 */
export class InventoryError extends SourceError {
  constructor(reason: string, options?: ErrorOptions) {
    super(`inventory: ${reason}`, 'failed', options)
  }
}
