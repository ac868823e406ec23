import { createHash } from 'node:crypto'
import { Transform } from 'node:stream'
import { InventoryError } from './inventory-error.js'
import type { InventoryColumn, InventoryFile } from './manifest.js'

/** One row of an inventory: an object (or, with versions, a version or a delete marker). */
export interface InventoryRow {
  /** The key decoded; '' when the fold needs no keys (neither versions nor prefixes). */
  readonly key: string
  /** Bytes; undefined for a delete marker. */
  readonly size: number | undefined
  /** ms since the epoch (NaN when the inventory gave none). */
  readonly modifiedMs: number
  readonly storageClass: string | undefined
  /** Undefined in an inventory of current objects only, and for the `null` version. */
  readonly versionId: string | undefined
  /** True in an inventory of current objects only. */
  readonly isLatest: boolean
  readonly isDeleteMarker: boolean
}

/** What reading one data file needs, whatever its format. */
export interface FileReading {
  readonly file: InventoryFile
  readonly columns: readonly InventoryColumn[]
  /**
   * S3_INVENTORY_MAX_INFLATION: the file inflates to at most this many times its size, or fails
   * (a gzip bomb, or a Parquet page declaring a huge size, is refused after that much work or
   * before that memory is taken, not at the scan's timeout).
   */
  readonly maxInflation: number
}

/**
 * Counts the bytes a file inflates to, gzip chunks as they come or Parquet pages as their headers
 * declare them, and throws once they pass S3_INVENTORY_MAX_INFLATION times the file's size.
 */
export function inflationBudget({ file, maxInflation }: FileReading): (bytes: number) => void {
  const maxInflated = maxInflation * file.size
  let inflated = 0
  return (bytes) => {
    inflated += bytes
    if (inflated > maxInflated) {
      throw new InventoryError(
        `${file.key} inflates past ${maxInflated} bytes (S3_INVENTORY_MAX_INFLATION ${maxInflation} times its ${file.size}): not read further`,
      )
    }
  }
}

/**
 * An error met while reading `file`: an InventoryError as it is, any other named by the file (and
 * by `what` went wrong, when the reader knows), so the bucket's failure says which file.
 */
export function asInventoryError(error: unknown, file: InventoryFile, what?: string): InventoryError {
  if (error instanceof InventoryError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new InventoryError(`${file.key}: ${what === undefined ? message : `${what} (${message})`}`, {
    cause: error,
  })
}

/** Rows handed to the fold at once: a listing page's worth. */
export const ROWS_PER_BATCH = 1000

/**
 * A data file's bytes as they come, passed through unchanged while their count and MD5 are
 * checked against the manifest: more bytes than it says fail at once, fewer or another MD5 at the
 * end, before the last rows reach the fold's result.
 */
export function checkedFileBytes(file: InventoryFile): Transform {
  const hash = createHash('md5')
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > file.size) {
        done(new InventoryError(`${file.key} is larger than the ${file.size} bytes manifest.json says`))
        return
      }
      hash.update(chunk)
      done(null, chunk)
    },
    flush(done) {
      if (seen !== file.size) {
        done(new InventoryError(`${file.key} is ${seen} bytes, manifest.json says ${file.size}`))
        return
      }
      const md5 = hash.digest('hex')
      if (md5 !== file.md5)
        done(new InventoryError(`${file.key}: MD5 ${md5} does not match manifest.json's ${file.md5}`))
      else done()
    },
  })
}

/** A Size field: digits, or empty for a delete marker. */
export function sizeOf(text: string, file: string): number | undefined {
  if (text === '') return undefined
  const size = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(size)) {
    throw new InventoryError(
      `${file}: Size ${JSON.stringify(text.slice(0, 32))} is not a whole number of bytes`,
    )
  }
  return size
}

/**
 * A key as AWS writes it in a CSV inventory: URL-encoded the way HTML forms are (a space is `+`,
 * a `+` is `%2B`).
 */
export function decodedKey(text: string, file: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    throw new InventoryError(`${file}: key ${JSON.stringify(text.slice(0, 64))} is not URL-encoded`)
  }
}
