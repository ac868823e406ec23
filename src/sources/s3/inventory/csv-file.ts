/**
 * One gzip CSV data file of an inventory, streamed: its bytes checked (size, MD5) as they come,
 * inflated, cut into lines and rows, a batch of rows at a time. Nothing is held but one chunk and
 * the line it ends inside; a line longer than MAX_LINE_BYTES is refused (a key is at most 1,024
 * bytes, 3,072 URL-encoded), and so is a file inflating past S3_INVENTORY_MAX_INFLATION times its
 * size. No header row: the columns are the manifest's fileSchema.
 */
import { pipeline, type Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { rfc3339Ms } from '../rfc3339.js'
import { InventoryError } from './inventory-error.js'
import type { InventoryColumn, InventoryFile } from './manifest.js'
import {
  asInventoryError,
  checkedFileBytes,
  decodedKey,
  type FileReading,
  type InventoryRow,
  inflationBudget,
  ROWS_PER_BATCH,
  sizeOf,
} from './rows.js'

const MAX_LINE_BYTES = 64 * 1024
const NEWLINE = 10

export interface CsvReading extends FileReading {
  /** Whether rows need their key decoded (versions or prefixes are folded). */
  readonly keys: boolean
}

/** The rows of `body` (the file's bytes as the store sends them), in batches. */
export async function* csvRows(body: Readable, reading: CsvReading): AsyncGenerator<InventoryRow[]> {
  const { file } = reading
  const gunzip = createGunzip()
  pipeline(body, checkedFileBytes(file), gunzip, () => {})
  const row = rowReader(reading)
  let batch: InventoryRow[] = []
  let rest: Buffer | undefined
  const inflated = inflationBudget(reading)
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated(chunk.length)
      const text = rest ? Buffer.concat([rest, chunk]) : chunk
      let start = 0
      for (let end = text.indexOf(NEWLINE); end >= 0; end = text.indexOf(NEWLINE, start)) {
        if (end > start) batch.push(row(text.toString('utf8', start, end)))
        start = end + 1
        if (batch.length >= ROWS_PER_BATCH) {
          yield batch
          batch = []
        }
      }
      rest = start < text.length ? text.subarray(start) : undefined
      if (rest && rest.length > MAX_LINE_BYTES) {
        throw new InventoryError(`${file.key}: a line longer than ${MAX_LINE_BYTES} bytes`)
      }
    }
  } catch (error) {
    throw csvError(error, file)
  } finally {
    body.destroy()
  }
  if (rest) batch.push(row(rest.toString('utf8')))
  if (batch.length > 0) yield batch
}

/** A zlib error says what is wrong with the file; any other is named by the file as it is. */
function csvError(error: unknown, file: InventoryFile): InventoryError {
  const code = (error as { code?: string } | undefined)?.code
  if (code === 'Z_BUF_ERROR') return asInventoryError(error, file, 'truncated gzip')
  if (code === 'Z_DATA_ERROR') return asInventoryError(error, file, 'not gzip')
  return asInventoryError(error, file)
}

/** A function from a line to its row, for these columns. */
function rowReader(reading: CsvReading): (line: string) => InventoryRow {
  const { columns, file } = reading
  const at = (column: InventoryColumn) => columns.indexOf(column)
  const key = at('Key')
  const size = at('Size')
  const modified = at('LastModifiedDate')
  const storageClass = at('StorageClass')
  const versionId = at('VersionId')
  const isLatest = at('IsLatest')
  const isDeleteMarker = at('IsDeleteMarker')
  return (line) => {
    const fields = csvFields(line)
    if (fields.length !== columns.length) {
      throw new InventoryError(
        `${file.key}: a row of ${fields.length} fields, fileSchema names ${columns.length}`,
      )
    }
    const field = (index: number) => (index < 0 ? '' : (fields[index] as string))
    const deleteMarker = field(isDeleteMarker) === 'true'
    const modifiedText = field(modified)
    const id = field(versionId)
    return {
      key: reading.keys ? decodedKey(field(key), file.key) : '',
      size: deleteMarker ? undefined : (sizeOf(field(size), file.key) ?? 0),
      modifiedMs: (modifiedText === '' ? undefined : rfc3339Ms(modifiedText)) ?? Number.NaN,
      storageClass: field(storageClass) || undefined,
      versionId: id === '' || id === 'null' ? undefined : id,
      isLatest: isLatest < 0 || field(isLatest) === 'true',
      isDeleteMarker: deleteMarker,
    }
  }
}

/** A CSV line's fields: each may be quoted ("a","b"), a quote inside doubled. */
export function csvFields(line: string): string[] {
  const fields: string[] = []
  let index = 0
  while (index <= line.length) {
    if (line.charCodeAt(index) === 34) {
      let value = ''
      let from = index + 1
      for (;;) {
        const quote = line.indexOf('"', from)
        if (quote < 0) throw new InventoryError('a quoted field without its closing quote')
        value += line.slice(from, quote)
        if (line.charCodeAt(quote + 1) === 34) {
          value += '"'
          from = quote + 2
        } else {
          index = quote + 1
          break
        }
      }
      fields.push(value)
    } else {
      const comma = line.indexOf(',', index)
      const end = comma < 0 ? line.length : comma
      fields.push(line.slice(index, end))
      index = end
    }
    if (index >= line.length) break
    if (line.charCodeAt(index) !== 44)
      throw new InventoryError('a quoted field followed by more than a comma')
    index++
    if (index === line.length) {
      fields.push('')
      break
    }
  }
  return fields
}
