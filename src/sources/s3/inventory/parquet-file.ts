/**
 * One Parquet data file of an inventory, through hyparquet (pure JavaScript, Snappy built in).
 * Parquet is read from its end (the footer says where each row group's columns are), so the file
 * is streamed to a temporary file first, its size and MD5 checked on the way; then it is read
 * one row group at a time, never whole, and the temporary file removed. Memory is one row group's
 * rows; disk is one data file. Keys are not URL-encoded in Parquet (only in CSV).
 */
import { createWriteStream } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  type AsyncBuffer,
  type Compressors,
  parquetMetadataAsync,
  parquetReadObjects,
  snappyUncompress,
} from 'hyparquet'
import { rfc3339Ms } from '../rfc3339.js'
import { InventoryError } from './inventory-error.js'
import { type InventoryColumn, type InventoryFile, parquetName } from './manifest.js'
import {
  asInventoryError,
  checkedFileBytes,
  type FileReading,
  type InventoryRow,
  inflationBudget,
  ROWS_PER_BATCH,
} from './rows.js'

/** The columns the fold reads, of those the manifest names. */
const READ: readonly InventoryColumn[] = [
  'Key',
  'Size',
  'LastModifiedDate',
  'StorageClass',
  'VersionId',
  'IsLatest',
  'IsDeleteMarker',
]

export async function* parquetRows(body: Readable, reading: FileReading): AsyncGenerator<InventoryRow[]> {
  const { file } = reading
  const folder = await mkdtemp(join(tmpdir(), 'objstore-inventory-'))
  const path = join(folder, 'data.parquet')
  try {
    try {
      await pipeline(body, checkedFileBytes(file), createWriteStream(path, { mode: 0o600 }))
    } catch (error) {
      throw asInventoryError(error, file)
    }
    const handle = await open(path, 'r')
    try {
      const buffer: AsyncBuffer = {
        byteLength: file.size,
        slice: async (start, end = file.size) => {
          const bytes = Buffer.alloc(Math.max(0, end - start))
          await handle.read(bytes, 0, bytes.length, start)
          return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer
        },
      }
      const metadata = await readable(file, () => parquetMetadataAsync(buffer))
      const columns = READ.filter((column) => reading.columns.includes(column))
      const names = columns.map(parquetName)
      const present = new Set(metadata.schema.map((element) => element.name))
      const absent = names.filter((name) => !present.has(name))
      if (absent.length > 0) throw new InventoryError(`${file.key} has no column ${absent.join(', ')}`)
      const compressors = boundedCompressors(reading)
      let rowStart = 0
      for (const group of metadata.row_groups) {
        const rowEnd = rowStart + Number(group.num_rows)
        const objects = await readable(file, () =>
          parquetReadObjects({ file: buffer, metadata, rowStart, rowEnd, columns: names, compressors }),
        )
        rowStart = rowEnd
        for (let from = 0; from < objects.length; from += ROWS_PER_BATCH) {
          yield objects.slice(from, from + ROWS_PER_BATCH).map((object) => rowOf(object, file.key))
        }
      }
    } finally {
      await handle.close()
    }
  } finally {
    body.destroy()
    await rm(folder, { recursive: true, force: true })
  }
}

/**
 * Snappy, the codec AWS's Parquet inventories use, counting the bytes its pages declare: past
 * S3_INVENTORY_MAX_INFLATION times the file's size the file fails, as a CSV file inflating past it
 * does. Pages stored uncompressed are the file's own bytes; other codecs the reader refuses.
 */
function boundedCompressors(reading: FileReading): Compressors {
  const inflated = inflationBudget(reading)
  return {
    SNAPPY: (input, outputLength) => {
      // Counted before the output is allocated: the header declares the size, the page may lie.
      inflated(outputLength)
      const output = new Uint8Array(outputLength)
      snappyUncompress(input, output)
      return output
    },
  }
}

async function readable<T>(file: InventoryFile, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    throw asInventoryError(error, file, 'not a readable Parquet file')
  }
}

function rowOf(object: Record<string, unknown>, file: string): InventoryRow {
  const deleteMarker = object.is_delete_marker === true
  const versionId = object.version_id
  const storageClass = object.storage_class
  return {
    key: typeof object.key === 'string' ? object.key : '',
    size: deleteMarker ? undefined : sizeOf(object.size, file),
    modifiedMs: msOf(object.last_modified_date),
    storageClass: typeof storageClass === 'string' && storageClass !== '' ? storageClass : undefined,
    versionId:
      typeof versionId === 'string' && versionId !== '' && versionId !== 'null' ? versionId : undefined,
    isLatest: object.is_latest === undefined || object.is_latest === true,
    isDeleteMarker: deleteMarker,
  }
}

function sizeOf(value: unknown, file: string): number {
  const size = typeof value === 'bigint' ? Number(value) : value === null || value === undefined ? 0 : value
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw new InventoryError(`${file}: size ${String(value).slice(0, 32)} is not a whole number of bytes`)
  }
  return size
}

/** A timestamp column: a Date (TIMESTAMP), ms as a number or bigint, or RFC 3339 text. */
function msOf(value: unknown): number {
  if (value instanceof Date) return value.getTime()
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number') return value
  if (typeof value === 'string') return rfc3339Ms(value) ?? Number.NaN
  return Number.NaN
}
