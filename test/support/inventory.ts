import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { parquetWriteBuffer } from 'hyparquet-writer'
import type { InventoryColumn } from '../../src/sources/s3/inventory/manifest.js'

/**
 * Writes an S3 Inventory of a bucket as AWS delivers one (manifest.json, manifest.checksum, data
 * files under `<prefix>/<bucket>/<config>/`), from what the store itself lists of the bucket, into
 * a destination bucket of the same store: an exporter reading it must measure what a listing does.
 */

export interface InventoryRowSpec {
  readonly key: string
  readonly size: number | undefined
  readonly modified: Date
  readonly storageClass: string
  readonly versionId?: string
  readonly isLatest?: boolean
  readonly isDeleteMarker?: boolean
}

export interface InventoryWrite {
  readonly client: S3Client
  readonly destination: string
  readonly prefix: string
  readonly bucket: string
  readonly configuration: string
  /** YYYY-MM-DDTHH-MMZ */
  readonly stamp: string
  readonly format: 'CSV' | 'Parquet'
  readonly rows: readonly InventoryRowSpec[]
  /** Rows per data file. */
  readonly perFile?: number
  readonly createdMs?: number
  /** Damage applied to the data files' bytes as stored (the manifest keeps the good ones' size and MD5). */
  readonly damage?: (file: Buffer, index: number) => Buffer | undefined
  /** The damage done before the manifest was written (its size and MD5 are the damaged file's). */
  readonly damageListed?: boolean
  /** The manifest's fields replaced. */
  readonly manifest?: Record<string, unknown>
  readonly versions?: boolean
}

/** Every object of `bucket` as the store lists it. */
export async function listedRows(client: S3Client, bucket: string): Promise<InventoryRowSpec[]> {
  const rows: InventoryRowSpec[] = []
  let token: string | undefined
  for (let page = 0; page < 1000; page++) {
    const answer = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }))
    for (const object of answer.Contents ?? []) {
      rows.push({
        key: object.Key as string,
        size: object.Size ?? 0,
        modified: object.LastModified as Date,
        storageClass: object.StorageClass ?? 'STANDARD',
      })
    }
    token = answer.NextContinuationToken
    if (!answer.IsTruncated) return rows
  }
  throw new Error('listing did not end')
}

const CSV_COLUMNS = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'ETag', 'StorageClass']
/** The columns of a versioned inventory, as AWS writes them with every version field asked for. */
export const VERSION_COLUMNS = [
  'Bucket',
  'Key',
  'VersionId',
  'IsLatest',
  'IsDeleteMarker',
  'Size',
  'LastModifiedDate',
  'StorageClass',
] as const satisfies readonly InventoryColumn[]

/** As AWS encodes keys in CSV inventories: form-style (a space is +). */
const formEncoded = (key: string) => encodeURIComponent(key).replace(/%20/g, '+')

export function csvFile(bucket: string, rows: readonly InventoryRowSpec[], versions: boolean): Buffer {
  const lines = rows.map((row) => {
    const fields = versions
      ? [
          bucket,
          formEncoded(row.key),
          row.versionId ?? '',
          String(row.isLatest ?? true),
          String(row.isDeleteMarker ?? false),
          row.size === undefined ? '' : String(row.size),
          row.modified.toISOString(),
          row.storageClass,
        ]
      : [bucket, formEncoded(row.key), String(row.size), row.modified.toISOString(), 'etag', row.storageClass]
    return fields.map((field) => `"${field}"`).join(',')
  })
  return gzipSync(`${lines.join('\n')}\n`)
}

/** The Parquet writer's compressors, by codec. */
type WriterCompressors = Parameters<typeof parquetWriteBuffer>[0]['compressors']

export function parquetFile(
  bucket: string,
  rows: readonly InventoryRowSpec[],
  versions: boolean,
  /** The writer's compressors (by default Snappy): a test swaps one to write a page that lies. */
  compressors?: WriterCompressors,
): Buffer {
  const columns = [
    { name: 'bucket', data: rows.map(() => bucket), type: 'STRING' as const },
    { name: 'key', data: rows.map((row) => row.key), type: 'STRING' as const },
    ...(versions
      ? [
          {
            name: 'version_id',
            data: rows.map((row) => row.versionId ?? null),
            type: 'STRING' as const,
            nullable: true,
          },
          { name: 'is_latest', data: rows.map((row) => row.isLatest ?? true), type: 'BOOLEAN' as const },
          {
            name: 'is_delete_marker',
            data: rows.map((row) => row.isDeleteMarker ?? false),
            type: 'BOOLEAN' as const,
          },
        ]
      : []),
    {
      name: 'size',
      data: rows.map((row) => (row.size === undefined ? null : BigInt(row.size))),
      type: 'INT64' as const,
      nullable: true,
    },
    { name: 'last_modified_date', data: rows.map((row) => row.modified), type: 'TIMESTAMP' as const },
    { name: 'storage_class', data: rows.map((row) => row.storageClass), type: 'STRING' as const },
  ]
  return Buffer.from(parquetWriteBuffer({ columnData: columns, rowGroupSize: 500, compressors }))
}

function parquetSchema(versions: boolean): string {
  const fields = [
    'required binary bucket (STRING)',
    'required binary key (STRING)',
    ...(versions
      ? [
          'optional binary version_id (STRING)',
          'optional boolean is_latest',
          'optional boolean is_delete_marker',
        ]
      : []),
    'optional int64 size',
    'optional int64 last_modified_date (TIMESTAMP(MILLIS,true))',
    'optional binary storage_class (STRING)',
  ]
  return `message s3.inventory { ${fields.join('; ')}; }`
}

const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex')

/** Writes the inventory; returns the manifest's key. */
export async function writeInventory(options: InventoryWrite): Promise<string> {
  const { client, destination, bucket, rows, format } = options
  const versions = options.versions ?? false
  const folder = `${options.prefix ? `${options.prefix}/` : ''}${bucket}/${options.configuration}/`
  const perFile = options.perFile ?? 1000
  const files: { key: string; size: number; MD5checksum: string }[] = []
  for (let index = 0; index * perFile < rows.length || index === 0; index++) {
    const part = rows.slice(index * perFile, (index + 1) * perFile)
    const made = format === 'CSV' ? csvFile(bucket, part, versions) : parquetFile(bucket, part, versions)
    const bytes = options.damageListed && options.damage ? (options.damage(made, index) ?? made) : made
    const key = `${folder}data/part-${index}.${format === 'CSV' ? 'csv.gz' : 'parquet'}`
    files.push({ key, size: bytes.length, MD5checksum: md5(bytes) })
    const stored = options.damage && !options.damageListed ? options.damage(bytes, index) : bytes
    if (stored) await client.send(new PutObjectCommand({ Bucket: destination, Key: key, Body: stored }))
  }
  const manifest = JSON.stringify({
    sourceBucket: bucket,
    destinationBucket: `arn:aws:s3:::${destination}`,
    version: '2016-11-30',
    creationTimestamp: String(options.createdMs ?? Date.now() - 60_000),
    fileFormat: format,
    fileSchema:
      format === 'CSV' ? (versions ? VERSION_COLUMNS : CSV_COLUMNS).join(', ') : parquetSchema(versions),
    files,
    ...options.manifest,
  })
  // s3rver shows common prefixes only one level below the prefix asked (AWS shows every one):
  // folder markers at each level let the exporter's Delimiter listings see the folders there.
  const levels = [
    options.prefix ? `${options.prefix}/` : undefined,
    `${folder.split('/').slice(0, -2).join('/')}/`,
    folder,
  ]
  for (const marker of levels) {
    if (marker && marker !== '/')
      await client.send(new PutObjectCommand({ Bucket: destination, Key: marker, Body: '' }))
  }
  const manifestKey = `${folder}${options.stamp}/manifest.json`
  await client.send(new PutObjectCommand({ Bucket: destination, Key: manifestKey, Body: manifest }))
  await client.send(
    new PutObjectCommand({
      Bucket: destination,
      Key: `${folder}${options.stamp}/manifest.checksum`,
      Body: `${md5(manifest)}\n`,
    }),
  )
  return manifestKey
}
