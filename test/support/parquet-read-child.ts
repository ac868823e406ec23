import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { parquetRows } from '../../src/sources/s3/inventory/parquet-file.js'

/**
 * Reads the Parquet file named by argv[2] as an inventory's data file and prints the outcome as
 * one line of JSON ({ rows } or { error }): run in a child process with a small heap, so a reader
 * that allocates what a hostile file declares fails there, not in the test runner.
 */
const bytes = readFileSync(process.argv[2] as string)
const file = {
  key: 'r/b/c/data/x.parquet',
  size: bytes.length,
  md5: createHash('md5').update(bytes).digest('hex'),
}
const columns = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'StorageClass'] as const
let rows = 0
try {
  for await (const batch of parquetRows(Readable.from([bytes]), { file, columns, maxInflation: 100 })) {
    rows += batch.length
  }
  process.stdout.write(`${JSON.stringify({ rows })}\n`)
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`)
}
