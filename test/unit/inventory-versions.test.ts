import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import { keyPrefix } from '../../src/figures/prefixes/labels.js'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import { type VersionEntry, VersionListingFold } from '../../src/record/version-listing.js'
import { csvRows } from '../../src/sources/s3/inventory/csv-file.js'
import { InventoryFold } from '../../src/sources/s3/inventory/inventory-fold.js'
import { type InventoryColumn, parseManifest } from '../../src/sources/s3/inventory/manifest.js'
import { parquetRows } from '../../src/sources/s3/inventory/parquet-file.js'
import { csvFile, type InventoryRowSpec, parquetFile, VERSION_COLUMNS } from '../support/inventory.js'

/**
 * An inventory of every version (CSV gzip and Parquet, read by the exporter's readers) folds into
 * the figures a versioned listing of the same entries gives (versions, delete markers, noncurrent
 * bytes and ages, expired delete markers, the version distribution, prefixes), whatever the
 * listing's page size; and, for current objects only, into what ListObjectsV2 would give.
 */

const NOW = Date.parse('2026-12-04T00:00:00Z')
const DAY = 86_400_000

/** Keys in order, each with its history newest first, as AWS writes a versioned inventory. */
function history(): InventoryRowSpec[] {
  const rows: InventoryRowSpec[] = []
  for (let index = 0; index < 400; index++) {
    const key = `p${index % 7}/k ${String(index).padStart(4, '0')}+é`
    const entries = 1 + (index % 5)
    for (let entry = 0; entry < entries; entry++) {
      const marker = entry === 0 && index % 9 === 0
      rows.push({
        key,
        versionId: index % 11 === 0 && entries === 1 ? undefined : `v${index}-${entry}`,
        isLatest: entry === 0,
        isDeleteMarker: marker,
        size: marker ? undefined : ((index * 131 + entry * 17) % 5000) * (index % 13 === 0 ? 400 : 1),
        modified: new Date(NOW - (entry * 40 + (index % 30)) * DAY),
        storageClass: index % 4 === 0 ? 'GLACIER' : 'STANDARD',
      })
    }
  }
  return rows
}

const prefixes = { depth: 1, delimiter: '/', topK: 5 }
const options = {
  storageClasses: true,
  nowMs: NOW,
  prefixTopK: prefixes.topK,
  prefixOf: (key: string) => keyPrefix(key, prefixes),
}

function listed(rows: readonly InventoryRowSpec[], pageSize: number) {
  const fold = new VersionListingFold(options)
  for (let from = 0; from < rows.length; from += pageSize) {
    const page = rows.slice(from, from + pageSize).map(
      (row): VersionEntry => ({
        key: row.key,
        versionId: row.versionId,
        isLatest: row.isLatest ?? true,
        modifiedMs: row.modified.getTime(),
        size: row.size,
        storageClass: row.storageClass,
      }),
    )
    const more = from + pageSize < rows.length
    fold.addPage(
      page.filter((entry) => entry.size !== undefined),
      page.filter((entry) => entry.size === undefined),
      more ? page.at(-1)?.key : undefined,
    )
  }
  return fold.finish()
}

const COLUMNS: readonly InventoryColumn[] = VERSION_COLUMNS

function fileOf(bytes: Buffer, name: string) {
  return { key: name, size: bytes.length, md5: createHash('md5').update(bytes).digest('hex') }
}

async function read(format: 'CSV' | 'Parquet', rows: readonly InventoryRowSpec[], versions: boolean) {
  const fold = new InventoryFold({ ...options, versions })
  // Two files: a key's history may straddle them, as it may straddle two listing pages.
  for (const part of [rows.slice(0, 777), rows.slice(777)]) {
    const bytes = format === 'CSV' ? csvFile('b', part, true) : parquetFile('b', part, true)
    const file = fileOf(bytes, `r/b/c/data/x.${format}`)
    const reading = { file, columns: COLUMNS, keys: true, maxInflation: 100 }
    const stream = Readable.from([bytes.subarray(0, 100), bytes.subarray(100)])
    for await (const batch of format === 'CSV' ? csvRows(stream, reading) : parquetRows(stream, reading))
      fold.add(batch)
  }
  return fold.finish()
}

for (const format of ['CSV', 'Parquet'] as const) {
  test(`${format}: an inventory of every version folds into what a versioned listing gives`, async () => {
    const rows = history()
    const expected = listed(rows, 1000)
    assert.deepStrictEqual(listed(rows, 7), expected, 'the listing itself does not depend on its pages')
    assert.ok((expected.versions?.deleteMarkers ?? 0) > 0 && (expected.versions?.noncurrentBytes ?? 0) > 0)
    assert.deepStrictEqual(await read(format, rows, true), expected)
  })

  test(`${format}: without SCAN_VERSIONS, only the latest versions count, as ListObjectsV2 gives them`, async () => {
    const rows = history()
    const current = new UsageAccumulator(options)
    for (const row of rows) {
      if (!(row.isLatest ?? true) || row.isDeleteMarker || row.size === undefined) continue
      current.add({
        size: row.size,
        modifiedMs: row.modified.getTime(),
        storageClass: row.storageClass,
        prefix: options.prefixOf(row.key),
      })
    }
    assert.deepStrictEqual(await read(format, rows, false), current.finish())
  })
}

test('a manifest of versions is recognised as one', () => {
  const text = JSON.stringify({
    creationTimestamp: String(NOW),
    fileFormat: 'CSV',
    fileSchema: COLUMNS.join(', '),
    files: [],
  })
  assert.equal(parseManifest(text, 'r/b/c/', 'b').versions, true)
})
