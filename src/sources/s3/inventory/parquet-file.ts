/**
 * One Parquet data file of an inventory, through hyparquet (pure JavaScript, Snappy built in).
 * Parquet is read from its end (the footer says where each row group's columns are), so the file
 * is streamed to a temporary file first, its size and MD5 checked on the way; then each row
 * group is read a batch of rows at a time, each column a page at a time (parquet-pages.ts), and
 * the temporary file removed. Memory is one page per column and one batch of rows, whatever the
 * row group's size; disk is one data file. Keys are not URL-encoded in Parquet (only in CSV).
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
  type FileMetaData,
  parquetMetadataAsync,
  parquetSchema,
  type RowGroup,
  snappyUncompress,
} from 'hyparquet'
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js'
import { getTreePath, isFlatColumn } from 'hyparquet/src/schema.js'
import { rfc3339Ms } from '../rfc3339.js'
import { InventoryError } from './inventory-error.js'
import { type InventoryColumn, type InventoryFile, parquetName } from './manifest.js'
import { type ChunkSource, type ColumnDecoder, ColumnPages } from './parquet-pages.js'
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
      const read = async (start: number, length: number) => {
        const bytes = Buffer.alloc(length)
        const { bytesRead } = await handle.read(bytes, 0, length, start)
        return bytes.subarray(0, bytesRead)
      }
      const metadata = await readable(file, () => parquetMetadataAsync(buffer))
      const columns = READ.filter((column) => reading.columns.includes(column))
      const names = columns.map(parquetName)
      const present = new Set(metadata.schema.map((element) => element.name))
      const absent = names.filter((name) => !present.has(name))
      if (absent.length > 0) throw new InventoryError(`${file.key} has no column ${absent.join(', ')}`)
      const inflated = inflationBudget(reading)
      const decoders = await readable(file, async () =>
        columnDecoders(metadata, names, boundedCompressors(inflated)),
      )
      for (const group of metadata.row_groups) {
        const rows = Number(group.num_rows)
        if (!Number.isSafeInteger(rows) || rows < 0) {
          throw new InventoryError(`${file.key}: a row group declares ${group.num_rows} rows: not read`)
        }
        if (rows === 0) continue
        const pages = decoders.map(
          (decoder) => new ColumnPages({ ...chunkOf(group, decoder, file), read, rows, inflated }),
        )
        for (let from = 0; from < rows; from += ROWS_PER_BATCH) {
          const count = Math.min(ROWS_PER_BATCH, rows - from)
          const values = new Map<string, unknown[]>()
          for (const [index, column] of pages.entries()) {
            values.set(names[index] as string, await readable(file, () => column.take(count)))
          }
          let row = 0
          const value = (name: string) => values.get(name)?.[row]
          const batch: InventoryRow[] = []
          for (; row < count; row++) batch.push(rowOf(value, file.key))
          yield batch
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
function boundedCompressors(inflated: (bytes: number) => void): Compressors {
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

/** Timestamps as ms since the epoch: no Date per row. */
const PARSERS = {
  ...DEFAULT_PARSERS,
  timestampFromMilliseconds: (ms: bigint) => Number(ms),
  timestampFromMicroseconds: (us: bigint) => Number(us / 1000n),
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1_000_000n),
}

/** How each column read is decoded; a column nested (not one value a row) is refused. */
function columnDecoders(metadata: FileMetaData, names: readonly string[], compressors: Compressors) {
  const tree = parquetSchema(metadata)
  return names.map((name) => {
    const schemaPath = getTreePath(tree, [name])
    const element = schemaPath[schemaPath.length - 1]?.element
    if (!element?.type || !isFlatColumn(schemaPath)) {
      throw new InventoryError(`column ${name} is not one value a row`)
    }
    const decoder: ColumnDecoder = {
      pathInSchema: [name],
      element,
      schemaPath,
      type: element.type,
      codec: 'UNCOMPRESSED',
      parsers: PARSERS,
      compressors,
    }
    return decoder
  })
}

/** Where a column's chunk lies in a row group, checked against the file. */
function chunkOf(
  group: RowGroup,
  decoder: ColumnDecoder,
  file: InventoryFile,
): Pick<ChunkSource, 'decoder' | 'start' | 'end' | 'file'> {
  const name = decoder.pathInSchema[0] as string
  const meta = group.columns.find(
    (chunk) => chunk.meta_data?.path_in_schema.length === 1 && chunk.meta_data.path_in_schema[0] === name,
  )?.meta_data
  if (!meta) throw new InventoryError(`${file.key}: a row group has no column ${name}`)
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
  const end = start + Number(meta.total_compressed_size)
  if (!Number.isSafeInteger(start) || start < 0 || !(end >= start) || end > file.size) {
    throw new InventoryError(
      `${file.key}: column ${name}'s chunk lies outside the file's ${file.size} bytes: not read`,
    )
  }
  return { decoder: { ...decoder, codec: meta.codec }, start, end, file: file.key }
}

async function readable<T>(file: InventoryFile, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    throw asInventoryError(error, file, 'not a readable Parquet file')
  }
}

function rowOf(value: (name: string) => unknown, file: string): InventoryRow {
  const deleteMarker = value('is_delete_marker') === true
  const versionId = value('version_id')
  const storageClass = value('storage_class')
  const key = value('key')
  const isLatest = value('is_latest')
  return {
    key: typeof key === 'string' ? key : '',
    size: deleteMarker ? undefined : sizeOf(value('size'), file),
    modifiedMs: msOf(value('last_modified_date')),
    storageClass: typeof storageClass === 'string' && storageClass !== '' ? storageClass : undefined,
    versionId:
      typeof versionId === 'string' && versionId !== '' && versionId !== 'null' ? versionId : undefined,
    isLatest: isLatest === undefined || isLatest === null || isLatest === true,
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
