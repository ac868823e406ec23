import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parquetWriteBuffer } from 'hyparquet-writer'
import type { InventoryColumn } from '../../src/sources/s3/inventory/manifest.js'
import { parquetRows } from '../../src/sources/s3/inventory/parquet-file.js'
import { parquetFile } from '../support/inventory.js'
import { lyingParquet } from '../support/parquet-lies.js'

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

/**
 * A page's header declares how many values it holds; a few bytes of RLE may say any number, and
 * the values are allocated as declared. Read in a child process with a 96 MB heap: a reader that
 * allocates what the page declares dies there (out of memory) instead of refusing the file.
 */
async function readInChild(bytes: Buffer): Promise<{ code: number | null; out: string; err: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'parquet-lie-'))
  try {
    const path = join(folder, 'x.parquet')
    await writeFile(path, bytes)
    const child = spawn(
      process.execPath,
      [
        '--max-old-space-size=96',
        '--import',
        'tsx',
        fileURLToPath(new URL('../support/parquet-read-child.ts', import.meta.url)),
        path,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000)
    })
    const [code] = (await once(child, 'close')) as [number | null]
    return { code, out, err }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/** Two good rows, one column's chunk replaced by a page declaring `values` values. */
const lying = (column: string, values: number, groupRows?: number) =>
  lyingParquet(parquetFile('b', ROWS.slice(0, 2), false), { column, values, groupRows })

test('a page declaring 50,000,000 values in a few bytes is refused before they are allocated', async () => {
  const bytes = lying('storage_class', 50_000_000)
  assert.ok(bytes.length < 20_000, `${bytes.length} bytes`)
  const { code, out, err } = await readInChild(bytes)
  assert.equal(code, 0, `the reader died: ${err.match(/FATAL ERROR[^\n]*/)?.[0] ?? err.slice(-300)}`)
  assert.match(
    out,
    /"error":"inventory: r\/b\/c\/data\/x\.parquet: a page of storage_class declares 50000000 values, its row group has 2 rows: not read"/,
  )
})

test('a row group declaring more rows than its columns hold is refused, not read as empty rows', async () => {
  // The footer says 200,000 rows, storage_class's page says so too, every other column holds 2.
  const bytes = lying('storage_class', 200_000, 200_000)
  await assert.rejects(read(bytes, 100), {
    name: 'SourceError',
    message: /x\.parquet: column key ends after 2 of its row group's 200000 rows: not read further$/,
  })
})

test('a page of more values than a page may hold is refused, whatever its row group declares', async () => {
  await assert.rejects(read(lying('key', 3_000_000, 3_000_000), 100), {
    message:
      /x\.parquet: a page of key declares 3000000 values, more than the 2097152 a page may hold: not read$/,
  })
})

test("a page's declared values count against S3_INVENTORY_MAX_INFLATION before they are decoded", async () => {
  // 1,000,000 values (8 MB counted) in a file of a few kB, under a page's and the group's bounds.
  const bytes = lying('key', 1_000_000, 1_000_000)
  await assert.rejects(read(bytes, 100), {
    message: new RegExp(
      `x\\.parquet inflates past ${100 * bytes.length} bytes \\(S3_INVENTORY_MAX_INFLATION 100 times`,
    ),
  })
})

test('a page inflating past 16 MiB is refused, within S3_INVENTORY_MAX_INFLATION or not', async () => {
  // One page of 10,000 keys of 2,000 characters (20 MB), some 1 MB in the file: within 100 times.
  const keys = Array.from({ length: 10_000 }, (_, index) => `${'k'.repeat(2_000)}/${index}`)
  const bytes = Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'key', data: keys, type: 'STRING' },
        { name: 'size', data: keys.map(() => 1n), type: 'INT64' },
        { name: 'last_modified_date', data: keys.map(() => new Date(0)), type: 'TIMESTAMP' },
        { name: 'storage_class', data: keys.map(() => 'STANDARD'), type: 'STRING' },
      ],
      pageSize: 64 * 2 ** 20,
    }),
  )
  await assert.rejects(read(bytes, 100), {
    message:
      /x\.parquet: a page of key declares \d+ bytes, more than the 16777216 a page may inflate to: not read$/,
  })
})
