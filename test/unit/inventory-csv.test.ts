import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { csvRows } from '../../src/sources/s3/inventory/csv-file.js'
import type { InventoryColumn } from '../../src/sources/s3/inventory/manifest.js'

/** A CSV gzip data file read as a stream: its rows, and each way it can be wrong (issue 27). */

const COLUMNS: InventoryColumn[] = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'StorageClass']

async function read(bytes: Buffer, declared = bytes) {
  const file = {
    key: 'r/b/c/data/x.csv.gz',
    size: declared.length,
    md5: createHash('md5').update(declared).digest('hex'),
  }
  const rows = []
  // One byte at a time at first: lines and gzip blocks cut anywhere.
  const chunks = [...Array.from(bytes.subarray(0, 40), (byte) => Buffer.from([byte])), bytes.subarray(40)]
  for await (const batch of csvRows(Readable.from(chunks), {
    file,
    columns: COLUMNS,
    keys: true,
    // The long line below is one character repeated: it inflates some 650-fold.
    maxInflation: 1000,
  }))
    rows.push(...batch)
  return rows
}

test('rows: keys decoded as forms encode them, sizes, times, classes; no header, no trailing newline needed', async () => {
  const rows = await read(
    gzipSync(
      '"b","a+b%2Bc%2F%C3%A9","12","2026-12-01T00:00:00.000Z","GLACIER"\n"b","k","0","2026-12-02T00:00:00.000Z",""',
    ),
  )
  assert.deepEqual(
    rows.map((row) => [row.key, row.size, row.modifiedMs, row.storageClass]),
    [
      ['a b+c/é', 12, Date.parse('2026-12-01T00:00:00Z'), 'GLACIER'],
      ['k', 0, Date.parse('2026-12-02T00:00:00Z'), undefined],
    ],
  )
})

test('refused: a row of the wrong width, a size that is no count, a long line, not gzip', async () => {
  await assert.rejects(read(gzipSync('"b","k","12"\n')), /a row of 3 fields, fileSchema names 5/)
  await assert.rejects(
    read(gzipSync('"b","k","-1","2026-12-01T00:00:00Z","S"\n')),
    /Size "-1" is not a whole number/,
  )
  await assert.rejects(read(gzipSync(`"b","${'k'.repeat(70_000)}`)), /a line longer than 65536 bytes/)
  await assert.rejects(read(Buffer.from('plain text, not gzip')), /not gzip/)
  const good = gzipSync('"b","k","1","2026-12-01T00:00:00Z","S"\n')
  await assert.rejects(
    read(good, Buffer.concat([good, Buffer.from('x')])),
    /is \d+ bytes, manifest\.json says \d+/,
  )
})
