import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import type { InventoryColumn } from '../../src/sources/s3/inventory/manifest.js'
import { parquetRows } from '../../src/sources/s3/inventory/parquet-file.js'
import { parquetFile } from '../support/inventory.js'

/**
 * A Parquet data file's pages declare the size they inflate to, and the reader allocates it before
 * inflating: S3_INVENTORY_MAX_INFLATION bounds them as it bounds a gzip CSV file (issue 27).
 */

const COLUMNS: InventoryColumn[] = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'StorageClass']

/** 2,000 keys of 2,000 repeated characters: Snappy stores them some 20 times smaller. */
const ROWS = Array.from({ length: 2_000 }, (_, index) => ({
  key: `${'k'.repeat(2_000)}/${index}`,
  size: index,
  modified: new Date(Date.UTC(2026, 0, 1)),
  storageClass: 'STANDARD',
}))

async function read(bytes: Buffer, maxInflation: number) {
  const file = {
    key: 'r/b/c/data/x.parquet',
    size: bytes.length,
    md5: createHash('md5').update(bytes).digest('hex'),
  }
  let rows = 0
  for await (const batch of parquetRows(Readable.from([bytes]), { file, columns: COLUMNS, maxInflation })) {
    rows += batch.length
  }
  return rows
}

test('a Parquet file inflating within S3_INVENTORY_MAX_INFLATION is read whole', async () => {
  const bytes = parquetFile('b', ROWS, false)
  assert.equal(await read(bytes, 100), ROWS.length)
})

test('a Parquet file whose pages inflate past S3_INVENTORY_MAX_INFLATION fails, naming the setting', async () => {
  const bytes = parquetFile('b', ROWS, false)
  await assert.rejects(read(bytes, 2), {
    name: 'SourceError',
    message: new RegExp(
      `^inventory: r/b/c/data/x\\.parquet inflates past ${2 * bytes.length} bytes \\(S3_INVENTORY_MAX_INFLATION 2 times its ${bytes.length}\\): not read further$`,
    ),
  })
})

test('a page whose header declares more than the file may inflate to is refused by what it declares', async () => {
  // Every page written as the Snappy stream of one byte while its header keeps the page's real
  // size (4 MB of keys in a file of a few kB): refused by the size declared, under the default
  // setting, before that memory is allocated, not when the inflated page turns out short.
  const oneByte = () => Uint8Array.of(1, 0, 0x78)
  const bytes = parquetFile('b', ROWS, false, { SNAPPY: oneByte })
  await assert.rejects(read(bytes, 100), {
    message: new RegExp(`inflates past ${100 * bytes.length} bytes \\(S3_INVENTORY_MAX_INFLATION 100 times`),
  })
})
