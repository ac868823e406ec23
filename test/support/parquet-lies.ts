import { type ColumnChunk, type FileMetaData, parquetMetadata } from 'hyparquet'
import { ByteWriter } from 'hyparquet-writer'
import { writePageHeader } from 'hyparquet-writer/src/datapage.js'
import { writeMetadata } from 'hyparquet-writer/src/metadata.js'

/**
 * A Parquet file whose pages declare more values than they hold: a few bytes of RLE may say a
 * page holds any number of values, and a reader that allocates what a page declares is made to
 * allocate that much by a file of a few hundred bytes (issue 27, a hostile inventory).
 *
 * `lyingParquet(file, { column, values })` keeps `file`'s row groups and every column but
 * `column`, whose chunk in the first row group is replaced by a dictionary of one value and one
 * data page declaring `values` values, encoded as one RLE run of that length (uncompressed).
 * `groupRows` also replaces that row group's row count, as the footer declares it.
 */
export interface Lie {
  readonly column: string
  readonly values: number
  readonly groupRows?: number | undefined
}

export function lyingParquet(file: Buffer, lie: Lie): Buffer {
  const metadata = parquetMetadata(toArrayBuffer(file))
  const footer = file.readUInt32LE(file.length - 8)
  const body = file.subarray(0, file.length - 8 - footer)
  const group = metadata.row_groups[0]
  const chunk = group?.columns.find((candidate) => candidate.meta_data?.path_in_schema[0] === lie.column)
  const meta = chunk?.meta_data
  if (!group || !chunk || !meta) throw new Error(`no column ${lie.column}`)
  const optional =
    metadata.schema.find((element) => element.name === lie.column)?.repetition_type === 'OPTIONAL'
  const pages = lyingChunk(meta.type, lie.values, optional)
  const offset = BigInt(body.length)
  const replaced: ColumnChunk = {
    ...chunk,
    file_offset: offset,
    meta_data: {
      ...meta,
      codec: 'UNCOMPRESSED',
      encodings: ['PLAIN', 'RLE', 'RLE_DICTIONARY'],
      num_values: BigInt(lie.values),
      total_uncompressed_size: BigInt(pages.chunk.length),
      total_compressed_size: BigInt(pages.chunk.length),
      dictionary_page_offset: offset,
      data_page_offset: offset + BigInt(pages.dataOffset),
      statistics: undefined,
      encoding_stats: undefined,
    },
    offset_index_offset: undefined,
    offset_index_length: undefined,
    column_index_offset: undefined,
    column_index_length: undefined,
  }
  const groupRows = lie.groupRows === undefined ? group.num_rows : BigInt(lie.groupRows)
  const lying: FileMetaData = {
    ...metadata,
    num_rows: metadata.num_rows - group.num_rows + groupRows,
    row_groups: [
      {
        ...group,
        num_rows: groupRows,
        columns: group.columns.map((candidate) => (candidate === chunk ? replaced : candidate)),
      },
      ...metadata.row_groups.slice(1),
    ],
  }
  const writer = new ByteWriter()
  writeMetadata(writer, lying)
  const footerBytes = Buffer.from(writer.getBytes())
  const length = Buffer.alloc(4)
  length.writeUInt32LE(footerBytes.length)
  return Buffer.concat([body, pages.chunk, footerBytes, length, Buffer.from('PAR1')])
}

/** A dictionary page of one value, then one data page: `values` times index 0, as one RLE run. */
function lyingChunk(type: string, values: number, optional: boolean): { chunk: Buffer; dataOffset: number } {
  const dictionary = type === 'BYTE_ARRAY' ? lengthPrefixed('STANDARD') : Buffer.alloc(8)
  const run = Buffer.concat([varint(values * 2), Buffer.of(1)]) // an RLE run: count << 1, value 1
  const levels = optional ? Buffer.concat([uint32(run.length), run]) : Buffer.alloc(0)
  const indexes = Buffer.concat([Buffer.of(1), varint(values * 2), Buffer.of(0)]) // bit width 1, run of 0
  const data = Buffer.concat([levels, indexes])
  const dictionaryPage = page(dictionary, {
    type: 'DICTIONARY_PAGE',
    uncompressed_page_size: dictionary.length,
    compressed_page_size: dictionary.length,
    dictionary_page_header: { num_values: 1, encoding: 'PLAIN' },
  })
  const dataPage = page(data, {
    type: 'DATA_PAGE',
    uncompressed_page_size: data.length,
    compressed_page_size: data.length,
    data_page_header: {
      num_values: values,
      encoding: 'RLE_DICTIONARY',
      definition_level_encoding: 'RLE',
      repetition_level_encoding: 'RLE',
    },
  })
  return { chunk: Buffer.concat([dictionaryPage, dataPage]), dataOffset: dictionaryPage.length }
}

function page(data: Buffer, header: Parameters<typeof writePageHeader>[1]): Buffer {
  const writer = new ByteWriter()
  writePageHeader(writer, header)
  return Buffer.concat([Buffer.from(writer.getBytes()), data])
}

function varint(value: number): Buffer {
  const bytes: number[] = []
  let rest = value
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80)
    rest = Math.floor(rest / 0x80)
  }
  bytes.push(rest)
  return Buffer.from(bytes)
}

const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32LE(value)
  return bytes
}

const lengthPrefixed = (text: string) => Buffer.concat([uint32(text.length), Buffer.from(text)])

const toArrayBuffer = (bytes: Buffer) =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer
