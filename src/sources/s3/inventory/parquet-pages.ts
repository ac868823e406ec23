/**
 * One column chunk of a Parquet row group, decoded one page at a time as its values are taken, so
 * a row group is never decoded whole (hyparquet's own readers decode a row group at once, and
 * reading it in row slices re-reads the chunk from its start for each slice). Every page header
 * is checked before its values are allocated: a few bytes of RLE may declare any number of values.
 */
import type { DecodedArray, PageHeader } from 'hyparquet'
import { parquetHeader, readPage } from 'hyparquet/src/column.js'
import { convert } from 'hyparquet/src/convert.js'
import { InventoryError } from './inventory-error.js'

export type ColumnDecoder = Parameters<typeof readPage>[2]

/**
 * The most values one page may declare: the reader holds a page's values at once (some 30 bytes
 * each while decoding). Twice the 1,048,576 rows of Arrow's largest default row group.
 */
const MAX_PAGE_VALUES = 2_097_152
/** The most bytes one page may declare it inflates to (writers aim at pages of about 1 MiB). */
const MAX_PAGE_BYTES = 16 * 2 ** 20
/** What a declared value counts against S3_INVENTORY_MAX_INFLATION: the least it takes decoded. */
const VALUE_BYTES = 8
const HEADER_PROBES = [64 * 2 ** 10, 4 * 2 ** 20]

export interface ChunkSource {
  /** `length` bytes of the file from `start`. */
  readonly read: (start: number, length: number) => Promise<Uint8Array>
  readonly decoder: ColumnDecoder
  /** The chunk's bytes in the file, [start, end). */
  readonly start: number
  readonly end: number
  /** The row group's rows, as its footer declares them. */
  readonly rows: number
  /** Counts bytes against S3_INVENTORY_MAX_INFLATION. */
  readonly inflated: (bytes: number) => void
  /** The data file's key, for messages. */
  readonly file: string
}

export class ColumnPages {
  readonly #source: ChunkSource
  readonly #name: string
  #offset: number
  #dictionary: DecodedArray | undefined
  #values: DecodedArray = []
  #index = 0
  /** Values the pages read so far hold. */
  #held = 0

  constructor(source: ChunkSource) {
    this.#source = source
    this.#name = source.decoder.pathInSchema.join('.')
    this.#offset = source.start
  }

  /** The column's next `count` values; fails when its pages end before them. */
  async take(count: number): Promise<unknown[]> {
    const out: unknown[] = new Array(count)
    let filled = 0
    while (filled < count) {
      if (this.#index >= this.#values.length) await this.#nextPage()
      const n = Math.min(count - filled, this.#values.length - this.#index)
      for (let i = 0; i < n; i++) out[filled + i] = this.#values[this.#index + i]
      filled += n
      this.#index += n
    }
    return out
  }

  /** Reads pages until one holding values; a dictionary page on the way is kept. */
  async #nextPage(): Promise<void> {
    const { file, rows, end } = this.#source
    for (;;) {
      if (this.#offset >= end) {
        throw new InventoryError(
          `${file}: column ${this.#name} ends after ${this.#held} of its row group's ${rows} rows: not read further`,
        )
      }
      const { header, reader } = await this.#page()
      if (header.type === 'DICTIONARY_PAGE') {
        this.#declare(header.dictionary_page_header?.num_values ?? 0, header, false)
        const { data } = readPage(reader, header, this.#source.decoder, undefined, undefined, 0)
        this.#dictionary = data && convert(data, this.#source.decoder)
      } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
        const v2 = header.data_page_header_v2
        const declared = v2
          ? Math.max(v2.num_values, v2.num_rows)
          : (header.data_page_header?.num_values ?? 0)
        this.#declare(declared, header, true)
        const { data = [] } = readPage(reader, header, this.#source.decoder, this.#dictionary, undefined, 0)
        if (data.length !== declared) {
          throw new InventoryError(
            `${file}: a page of ${this.#name} holds ${data.length} of the ${declared} values it declares: not read further`,
          )
        }
        this.#held += declared
        this.#values = data
        this.#index = 0
        if (declared > 0) return
      }
      // Index pages and pages of no values are passed over.
    }
  }

  /** Refuses what a page declares past the bounds, else counts it against the inflation budget. */
  #declare(values: number, header: PageHeader, data: boolean): void {
    const { file, rows } = this.#source
    const page = `${file}: a page of ${this.#name}`
    if (!Number.isSafeInteger(values) || values < 0) {
      throw new InventoryError(`${page} declares ${values} values: not read`)
    }
    if (data && this.#held + values > rows) {
      const read = this.#held > 0 ? ` (${this.#held} read before it)` : ''
      throw new InventoryError(
        `${page} declares ${values} values, its row group has ${rows} rows${read}: not read`,
      )
    }
    if (!data && values > header.uncompressed_page_size * 8) {
      throw new InventoryError(
        `${page} declares ${values} values in ${header.uncompressed_page_size} bytes: not read`,
      )
    }
    if (values > MAX_PAGE_VALUES) {
      throw new InventoryError(
        `${page} declares ${values} values, more than the ${MAX_PAGE_VALUES} a page may hold: not read`,
      )
    }
    this.#source.inflated(values * VALUE_BYTES)
  }

  /** The next page's header, and a reader at its first byte holding the whole page. */
  async #page(): Promise<{ header: PageHeader; reader: { view: DataView; offset: number } }> {
    const { file, end, read } = this.#source
    const left = end - this.#offset
    let error: unknown
    for (const probe of HEADER_PROBES) {
      const bytes = await read(this.#offset, Math.min(probe, left))
      const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 }
      let header: PageHeader
      try {
        header = parquetHeader(reader)
      } catch (failed) {
        error = failed
        if (probe >= left) break
        continue
      }
      const size = header.compressed_page_size
      const start = this.#offset + reader.offset
      if (!Number.isSafeInteger(size) || size < 0 || start + size > end) {
        throw new InventoryError(`${file}: a page of ${this.#name} runs past its column chunk: not read`)
      }
      if (header.uncompressed_page_size > MAX_PAGE_BYTES) {
        throw new InventoryError(
          `${file}: a page of ${this.#name} declares ${header.uncompressed_page_size} bytes, more than the ${MAX_PAGE_BYTES} a page may inflate to: not read`,
        )
      }
      this.#offset = start + size
      if (reader.offset + size <= bytes.byteLength) return { header, reader }
      const page = await read(start, size)
      return {
        header,
        reader: { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 },
      }
    }
    throw error
  }
}
