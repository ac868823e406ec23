import assert from 'node:assert/strict'
import { test } from 'node:test'
import { csvFields } from '../../src/sources/s3/inventory/csv-file.js'
import { parseManifest } from '../../src/sources/s3/inventory/manifest.js'

/** An S3 Inventory's manifest.json as AWS writes one (issue 27), and what is refused in it. */

const FOLDER = 'reports/photos/daily/'
const FILE = { key: `${FOLDER}data/a.csv.gz`, size: 120, MD5checksum: '0123456789ABCDEF0123456789abcdef' }
const manifest = (fields: Record<string, unknown>) =>
  JSON.stringify({
    sourceBucket: 'photos',
    creationTimestamp: '1796346000000',
    fileFormat: 'CSV',
    fileSchema: 'Bucket, Key, Size, LastModifiedDate, ETag, StorageClass',
    files: [FILE],
    ...fields,
  })

test('a CSV manifest: its columns in order, its files, its creation time', () => {
  const parsed = parseManifest(manifest({}), FOLDER, 'photos')
  assert.deepEqual(parsed.columns, ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'ETag', 'StorageClass'])
  assert.deepEqual(parsed.files, [{ key: FILE.key, size: 120, md5: '0123456789abcdef0123456789abcdef' }])
  assert.equal(parsed.createdMs, 1_796_346_000_000)
  assert.equal(parsed.versions, false)
})

test('a Parquet manifest names its columns in snake case', () => {
  const parsed = parseManifest(
    manifest({
      fileFormat: 'Parquet',
      fileSchema:
        'message s3.inventory { required binary bucket (STRING); required binary key (STRING); optional binary version_id (STRING); optional boolean is_latest; optional boolean is_delete_marker; optional int64 size; optional int64 last_modified_date (TIMESTAMP(MILLIS,true)); optional binary e_tag (STRING); optional binary storage_class (STRING);}',
    }),
    FOLDER,
    'photos',
  )
  assert.equal(parsed.versions, true)
  assert.ok(parsed.columns.includes('ETag') && parsed.columns.includes('LastModifiedDate'))
})

test('what is refused, each with a reason a user can act on', () => {
  const refused = (fields: Record<string, unknown>, reason: RegExp) =>
    assert.throws(() => parseManifest(manifest(fields), FOLDER, 'photos'), reason)
  refused({ fileFormat: 'ORC' }, /ORC cannot be read .*choose Parquet \(or CSV\)/)
  refused(
    { fileSchema: 'Bucket, Key, Size, LastModifiedDate, Colour, StorageClass' },
    /unknown column "Colour"/,
  )
  refused({ fileSchema: 'Bucket, Key, LastModifiedDate, StorageClass' }, /lacks Size: add this field/)
  refused(
    { fileSchema: 'Bucket, Key, VersionId, Size, LastModifiedDate, StorageClass' },
    /lacks IsLatest, IsDeleteMarker/,
  )
  refused({ files: [{ ...FILE, key: 'elsewhere/a.csv.gz' }] }, /not a key under reports\/photos\/daily\//)
  refused({ files: [{ ...FILE, MD5checksum: 'x' }] }, /no MD5checksum/)
  refused({ creationTimestamp: 'yesterday' }, /creationTimestamp/)
  refused({ sourceBucket: 'other' }, /inventory of bucket other, not photos/)
  assert.throws(() => parseManifest('{', FOLDER, 'photos'), /not JSON/)
})

test('CSV fields: quoted or not, quotes doubled, empty ones kept', () => {
  assert.deepEqual(csvFields('"b","a+key%2F","12","","STANDARD"'), ['b', 'a+key%2F', '12', '', 'STANDARD'])
  assert.deepEqual(csvFields('b,k,,'), ['b', 'k', '', ''])
  assert.deepEqual(csvFields('"say ""hi""",x'), ['say "hi"', 'x'])
  assert.throws(() => csvFields('"open,x'), /closing quote/)
})
