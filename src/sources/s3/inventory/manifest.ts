/**
 * An S3 Inventory's manifest.json, read and checked before any data file is: its format (CSV or
 * Parquet; ORC refused, no JavaScript reader exists), its columns (fileSchema: each one known, the
 * ones the figures need present), its files (each under the inventory's folder, with a size and an
 * MD5) and its creation time, which the bucket's figures are as of. Bounded: a manifest of more
 * than MAX_FILES files is refused rather than read.
 */
import { InventoryError } from './inventory-error.js'

/** The columns an inventory may hold, as its CSV fileSchema names them (AWS, 2024). */
const KNOWN_COLUMNS = [
  'Bucket',
  'Key',
  'VersionId',
  'IsLatest',
  'IsDeleteMarker',
  'Size',
  'LastModifiedDate',
  'ETag',
  'StorageClass',
  'IsMultipartUploaded',
  'ReplicationStatus',
  'EncryptionStatus',
  'ObjectLockRetainUntilDate',
  'ObjectLockMode',
  'ObjectLockLegalHoldStatus',
  'IntelligentTieringAccessTier',
  'BucketKeyStatus',
  'ChecksumAlgorithm',
  'ObjectAccessControlList',
  'ObjectOwner',
  'LifecycleExpirationDate',
] as const
export type InventoryColumn = (typeof KNOWN_COLUMNS)[number]

/** What every figure of a listing needs: an inventory without one of these is refused. */
const REQUIRED: readonly InventoryColumn[] = ['Bucket', 'Key', 'Size', 'LastModifiedDate', 'StorageClass']
/** With VersionId, what the version figures need besides. */
const WITH_VERSIONS: readonly InventoryColumn[] = ['IsLatest', 'IsDeleteMarker']

/** Parquet names its columns in snake case (`last_modified_date`, `e_tag`). */
const PARQUET_NAMES: ReadonlyMap<string, InventoryColumn> = new Map(
  KNOWN_COLUMNS.map((column) => [snakeCase(column), column]),
)

function snakeCase(column: string): string {
  return column.replace(/(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/g, '_').toLowerCase()
}

/** The parquet name of a column (`LastModifiedDate`: `last_modified_date`). */
export function parquetName(column: InventoryColumn): string {
  return snakeCase(column)
}

/** The most data files one manifest may list (AWS writes one per few million objects). */
const MAX_FILES = 100_000
/** A key of the destination bucket: S3's limit. */
const MAX_KEY_LENGTH = 1024

type InventoryFormat = 'CSV' | 'Parquet'

export interface InventoryFile {
  readonly key: string
  readonly size: number
  /** Lower-case hex. */
  readonly md5: string
}

export interface InventoryManifest {
  readonly format: InventoryFormat
  /** In the files' order (CSV has no header: this is its only naming of the fields). */
  readonly columns: readonly InventoryColumn[]
  readonly files: readonly InventoryFile[]
  /** When AWS began the inventory's scan, ms since the epoch: the figures are as of then. */
  readonly createdMs: number
  /** Whether it lists every version (VersionId among its columns). */
  readonly versions: boolean
}

/**
 * `text` (manifest.json) as a manifest, or an InventoryError naming what is wrong. `folder` is
 * `<prefix>/<bucket>/<config-id>/`: every data file must be under it.
 */
export function parseManifest(text: string, folder: string, bucket: string): InventoryManifest {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    throw new InventoryError('manifest.json is not JSON')
  }
  if (typeof document !== 'object' || document === null)
    throw new InventoryError('manifest.json is not an object')
  const fields = document as Record<string, unknown>
  if (fields.sourceBucket !== undefined && fields.sourceBucket !== bucket) {
    throw new InventoryError(
      `manifest.json is the inventory of bucket ${String(fields.sourceBucket)}, not ${bucket}`,
    )
  }
  const format = formatOf(fields.fileFormat)
  const columns = columnsOf(format, fields.fileSchema)
  return {
    format,
    columns,
    files: filesOf(fields.files, folder),
    createdMs: createdMsOf(fields.creationTimestamp),
    versions: columns.includes('VersionId'),
  }
}

function formatOf(value: unknown): InventoryFormat {
  if (value === 'CSV' || value === 'Parquet') return value
  if (value === 'ORC') {
    throw new InventoryError(
      'fileFormat ORC cannot be read (no JavaScript reader exists): choose Parquet (or CSV) in the inventory configuration',
    )
  }
  throw new InventoryError(`fileFormat ${JSON.stringify(value)?.slice(0, 40)} is not CSV or Parquet`)
}

/**
 * The columns fileSchema names: `Bucket, Key, Size, ...` for CSV, a Parquet message
 * (`message s3.inventory { required binary bucket (STRING); ... }`) for Parquet.
 */
function columnsOf(format: InventoryFormat, schema: unknown): InventoryColumn[] {
  if (typeof schema !== 'string' || schema.length > 8192) throw new InventoryError('fileSchema is missing')
  const names =
    format === 'CSV'
      ? schema.split(',').map((name) => name.trim())
      : [...schema.matchAll(/\b(?:required|optional|repeated)\s+\w+\s+([A-Za-z_][\w]*)/g)].map(
          (match) => match[1] as string,
        )
  const columns: InventoryColumn[] = []
  for (const name of names) {
    const column =
      format === 'CSV'
        ? (KNOWN_COLUMNS as readonly string[]).includes(name)
          ? (name as InventoryColumn)
          : undefined
        : PARQUET_NAMES.get(name)
    if (column === undefined)
      throw new InventoryError(`fileSchema names an unknown column ${JSON.stringify(name.slice(0, 64))}`)
    if (columns.includes(column)) throw new InventoryError(`fileSchema names column ${name} twice`)
    columns.push(column)
  }
  const needed = [...REQUIRED, ...(columns.includes('VersionId') ? WITH_VERSIONS : [])]
  const missing = needed.filter((column) => !columns.includes(column))
  if (missing.length > 0) {
    throw new InventoryError(
      `fileSchema lacks ${missing.join(', ')}: add ${missing.length > 1 ? 'these fields' : 'this field'} to the inventory configuration`,
    )
  }
  return columns
}

function filesOf(value: unknown, folder: string): InventoryFile[] {
  if (!Array.isArray(value)) throw new InventoryError('manifest.json lists no files')
  if (value.length > MAX_FILES)
    throw new InventoryError(`manifest.json lists ${value.length} files, more than ${MAX_FILES}`)
  return value.map((entry: unknown, index) => {
    const { key, size, MD5checksum } = (entry ?? {}) as Record<string, unknown>
    if (typeof key !== 'string' || key.length > MAX_KEY_LENGTH || !key.startsWith(folder)) {
      throw new InventoryError(`manifest.json's file ${index} is not a key under ${folder}`)
    }
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw new InventoryError(`manifest.json's file ${key} has no size`)
    }
    if (typeof MD5checksum !== 'string' || !/^[0-9a-fA-F]{32}$/.test(MD5checksum)) {
      throw new InventoryError(`manifest.json's file ${key} has no MD5checksum`)
    }
    return { key, size, md5: MD5checksum.toLowerCase() }
  })
}

/** creationTimestamp: ms since the epoch, as a string of digits (AWS) or a number. */
function createdMsOf(value: unknown): number {
  const ms = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value
  // 2000-01-01 to a day ahead of this clock: anything else is not when an inventory was made.
  if (
    typeof ms !== 'number' ||
    !Number.isSafeInteger(ms) ||
    ms < 946_684_800_000 ||
    ms > Date.now() + 86_400_000
  ) {
    throw new InventoryError(
      `creationTimestamp ${JSON.stringify(value)?.slice(0, 40)} is not a time in ms since the epoch`,
    )
  }
  return ms
}
