import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describeS3Request, escapeXml, type S3Request, s3ErrorXml } from './s3-requests.js'

/**
 * A small S3 endpoint answering the listing calls with the XML documented by AWS
 * (ListBuckets, ListObjectsV2, ListObjectVersions, ListMultipartUploads, and ListParts for uploads
 * described with their parts; NotImplemented for the others), from a described
 * content, in pages of `pageSize`. It stands in for what s3rver lacks (versions, multipart
 * listings) so the exporter's real SDK parsing and pagination run against documented responses.
 */

export interface StoredVersion {
  readonly key: string
  readonly versionId: string
  readonly isLatest: boolean
  readonly lastModified: Date
  /** Absent for a delete marker. */
  readonly size?: number
  readonly storageClass?: string
}

export interface StoredUpload {
  readonly key: string
  readonly uploadId: string
  readonly initiated: Date
  /** Part sizes, numbered from 1; ListParts answers NotImplemented for an upload without them. */
  readonly parts?: readonly number[]
}

export interface StoredBucket {
  readonly name: string
  /** Versions and delete markers, sorted by key, newest first within a key (S3's listing order). */
  readonly versions: readonly StoredVersion[]
  readonly uploads: readonly StoredUpload[]
}

export interface XmlStore {
  readonly endpoint: string
  /** Environment that points the exporter's s3 source at this store, versions listed. */
  readonly exporterEnv: Readonly<Record<string, string>>
  readonly seen: S3Request[]
  close(): Promise<void>
}

const MiB = 1024 * 1024

/**
 * Ways a store strays from S3, for the tests of a lying store (none by default: the store answers
 * as S3 documents, StartAfter, Prefix, Delimiter and MaxKeys included).
 */
export interface StoreQuirks {
  /** ListObjectsV2's start-after ignored: a listing without a token starts at the first key. */
  readonly ignoreStartAfter?: boolean
  /** ListObjectVersions' key-marker ignored when it comes without a version-id-marker. */
  readonly ignoreLoneKeyMarker?: boolean
  /** ListObjectVersions' version-id-marker ignored: the page starts at the marker key's first entry. */
  readonly ignoreVersionIdMarker?: boolean
  /**
   * Where the ListObjectsV2 page after the one starting at index `start` begins, as its token
   * says (default: after the page's last key): a cycle, or a store that never moves.
   */
  readonly nextStart?: (start: number, pageSize: number) => number
  /** Each ListObjectsV2 token new (it carries a serial number), as an opaque token may be. */
  readonly freshTokens?: boolean
}

/**
 * The versioned bucket the e2e suites show through a real Prometheus: key k1 with a current 100 B
 * version (2026-03-02) over a 50 B one; k2 deleted, a delete marker (2026-03-04) over 30 B. So 4
 * versions, 1 delete marker, 80 noncurrent bytes, 100 current bytes in 1 object. With `uploads`,
 * two incomplete multipart uploads: big.iso (2026-02-01, parts of 5 MiB, 5 MiB and 100 B) and
 * big2.iso (2026-02-15, one part of 42 B).
 */
export function versionedBucket(options: { readonly uploads: boolean }): StoredBucket {
  return {
    name: 'versioned',
    versions: [
      {
        key: 'k1',
        versionId: 'v2',
        isLatest: true,
        lastModified: new Date('2026-03-02T00:00:00Z'),
        size: 100,
      },
      {
        key: 'k1',
        versionId: 'v1',
        isLatest: false,
        lastModified: new Date('2026-03-01T00:00:00Z'),
        size: 50,
      },
      { key: 'k2', versionId: 'v4', isLatest: true, lastModified: new Date('2026-03-04T00:00:00Z') },
      {
        key: 'k2',
        versionId: 'v3',
        isLatest: false,
        lastModified: new Date('2026-03-03T00:00:00Z'),
        size: 30,
      },
    ],
    uploads: options.uploads
      ? [
          {
            key: 'big.iso',
            uploadId: 'u1',
            initiated: new Date('2026-02-01T00:00:00Z'),
            parts: [5 * MiB, 5 * MiB, 100],
          },
          { key: 'big2.iso', uploadId: 'u2', initiated: new Date('2026-02-15T00:00:00Z'), parts: [42] },
        ]
      : [],
  }
}

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/'
const OWNER =
  '<Owner><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID><DisplayName>mtd</DisplayName></Owner>'

export async function startXmlStore(
  buckets: readonly StoredBucket[],
  pageSize: number,
  quirks: StoreQuirks = {},
): Promise<XmlStore> {
  let serial = 0
  const tokenFor = (start: number) => (quirks.freshTokens ? `${start}.${++serial}` : `${start}`)
  const seen: S3Request[] = []
  const server: Server = createServer((incoming, outgoing) => {
    incoming.resume()
    const request = describeS3Request(incoming)
    seen.push(request)
    const bucket = buckets.find((candidate) => candidate.name === request.bucket)
    const reply = (status: number, body: string) => {
      outgoing.writeHead(status, { 'Content-Type': 'application/xml' })
      outgoing.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`)
    }
    if (request.operation === 'ListBuckets') return reply(200, listBuckets(buckets))
    if (!bucket)
      return reply(404, s3ErrorXml('NoSuchBucket', 'The specified bucket does not exist', incoming.url ?? ''))
    const { query } = request
    if (request.operation === 'ListObjectVersions')
      return reply(200, listVersions(bucket, query, pageSize, quirks))
    if (request.operation === 'ListMultipartUploads') return reply(200, listUploads(bucket, query, pageSize))
    if (request.operation === 'ListObjectsV2')
      return reply(200, listObjectsV2(bucket, query, pageSize, quirks, tokenFor))
    const upload = bucket.uploads.find((u) => u.key === request.key && u.uploadId === query.get('uploadId'))
    if (request.operation === 'ListParts' && upload?.parts)
      return reply(200, listParts(bucket, upload, query, pageSize))
    reply(501, s3ErrorXml('NotImplemented', 'not implemented by the test store', incoming.url ?? ''))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    endpoint,
    exporterEnv: {
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      SCAN_VERSIONS: 'true',
    },
    seen,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

function listBuckets(buckets: readonly StoredBucket[]): string {
  const entries = buckets
    .map(
      (bucket) =>
        `<Bucket><Name>${escapeXml(bucket.name)}</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate></Bucket>`,
    )
    .join('')
  return `<ListAllMyBucketsResult xmlns="${NS}">${OWNER}<Buckets>${entries}</Buckets></ListAllMyBucketsResult>`
}

/** GET /bucket/key?uploadId: the parts after part-number-marker. */
function listParts(
  bucket: StoredBucket,
  upload: StoredUpload,
  query: URLSearchParams,
  pageSize: number,
): string {
  const marker = Number(query.get('part-number-marker') ?? '0')
  const parts = (upload.parts ?? []).map((size, index) => ({ number: index + 1, size }))
  const page = parts.filter((part) => part.number > marker).slice(0, pageSize)
  const last = page.at(-1)
  const truncated = last !== undefined && last.number < parts.length
  const body = page
    .map(
      (part) =>
        `<Part><PartNumber>${part.number}</PartNumber><LastModified>${upload.initiated.toISOString()}</LastModified><ETag>"fba9dede5f27731c9771645a39863328"</ETag><Size>${part.size}</Size></Part>`,
    )
    .join('')
  const next = truncated ? `<NextPartNumberMarker>${last.number}</NextPartNumberMarker>` : ''
  return `<ListPartsResult xmlns="${NS}"><Bucket>${escapeXml(bucket.name)}</Bucket><Key>${escapeXml(upload.key)}</Key><UploadId>${escapeXml(upload.uploadId)}</UploadId><PartNumberMarker>${marker}</PartNumberMarker>${next}<MaxParts>${pageSize}</MaxParts><IsTruncated>${truncated}</IsTruncated>${body}</ListPartsResult>`
}

/** GET /bucket?versions: entries after (key-marker, version-id-marker), Version and DeleteMarker elements. */
function listVersions(
  bucket: StoredBucket,
  query: URLSearchParams,
  pageSize: number,
  quirks: StoreQuirks,
): string {
  const keyMarker = query.get('key-marker') ?? ''
  const versionIdMarker = query.get('version-id-marker') ?? ''
  let start = 0
  if (keyMarker && !(quirks.ignoreLoneKeyMarker && !versionIdMarker)) {
    const at = bucket.versions.findIndex(
      (entry) => entry.key === keyMarker && entry.versionId === versionIdMarker,
    )
    start = at >= 0 ? at + 1 : bucket.versions.findIndex((entry) => entry.key > keyMarker)
    if (quirks.ignoreVersionIdMarker && versionIdMarker)
      start = bucket.versions.findIndex((entry) => entry.key >= keyMarker)
    if (start < 0) start = bucket.versions.length
  }
  const page = bucket.versions.slice(start, start + pageSize)
  const truncated = start + pageSize < bucket.versions.length
  const last = page.at(-1)
  const body = page
    .map((entry) => {
      const common = `<Key>${escapeXml(entry.key)}</Key><VersionId>${escapeXml(entry.versionId)}</VersionId><IsLatest>${entry.isLatest}</IsLatest><LastModified>${entry.lastModified.toISOString()}</LastModified>`
      if (entry.size === undefined) return `<DeleteMarker>${OWNER}${common}</DeleteMarker>`
      return `<Version>${common}<ETag>"fba9dede5f27731c9771645a39863328"</ETag><Size>${entry.size}</Size><StorageClass>${escapeXml(entry.storageClass ?? 'STANDARD')}</StorageClass>${OWNER}</Version>`
    })
    .join('')
  const next =
    truncated && last
      ? `<NextKeyMarker>${escapeXml(last.key)}</NextKeyMarker><NextVersionIdMarker>${escapeXml(last.versionId)}</NextVersionIdMarker>`
      : ''
  return `<ListVersionsResult xmlns="${NS}"><Name>${escapeXml(bucket.name)}</Name><Prefix></Prefix><KeyMarker>${escapeXml(keyMarker)}</KeyMarker><VersionIdMarker>${escapeXml(versionIdMarker)}</VersionIdMarker>${next}<MaxKeys>${pageSize}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${body}</ListVersionsResult>`
}

/** GET /bucket?uploads: uploads after (key-marker, upload-id-marker). */
function listUploads(bucket: StoredBucket, query: URLSearchParams, pageSize: number): string {
  const keyMarker = query.get('key-marker') ?? ''
  const uploadIdMarker = query.get('upload-id-marker') ?? ''
  let start = 0
  if (keyMarker) {
    start =
      bucket.uploads.findIndex((upload) => upload.key === keyMarker && upload.uploadId === uploadIdMarker) + 1
  }
  const page = bucket.uploads.slice(start, start + pageSize)
  const truncated = start + pageSize < bucket.uploads.length
  const last = page.at(-1)
  const body = page
    .map(
      (upload) =>
        `<Upload><Key>${escapeXml(upload.key)}</Key><UploadId>${escapeXml(upload.uploadId)}</UploadId><Initiator><ID>arn:aws:iam::111122223333:user/test</ID><DisplayName>test</DisplayName></Initiator>${OWNER}<StorageClass>STANDARD</StorageClass><Initiated>${upload.initiated.toISOString()}</Initiated></Upload>`,
    )
    .join('')
  const next =
    truncated && last
      ? `<NextKeyMarker>${escapeXml(last.key)}</NextKeyMarker><NextUploadIdMarker>${escapeXml(last.uploadId)}</NextUploadIdMarker>`
      : ''
  return `<ListMultipartUploadsResult xmlns="${NS}"><Bucket>${escapeXml(bucket.name)}</Bucket><KeyMarker>${escapeXml(keyMarker)}</KeyMarker><UploadIdMarker>${escapeXml(uploadIdMarker)}</UploadIdMarker>${next}<MaxUploads>${pageSize}</MaxUploads><IsTruncated>${truncated}</IsTruncated>${body}</ListMultipartUploadsResult>`
}

/**
 * GET /bucket?list-type=2: current objects (latest versions that are not delete markers) under
 * prefix, after start-after, keys under a delimiter rolled up into common prefixes, max-keys of
 * them a page (at most `pageSize`). The token is the index of the next page's first key.
 */
function listObjectsV2(
  bucket: StoredBucket,
  query: URLSearchParams,
  pageSize: number,
  quirks: StoreQuirks,
  tokenFor: (start: number) => string,
): string {
  const prefix = query.get('prefix') ?? ''
  const delimiter = query.get('delimiter') ?? ''
  const startAfter = quirks.ignoreStartAfter ? '' : (query.get('start-after') ?? '')
  const maxKeys = Math.min(pageSize, Number(query.get('max-keys') ?? pageSize))
  const current = bucket.versions.filter(
    (entry) => entry.isLatest && entry.size !== undefined && entry.key.startsWith(prefix),
  )
  const token = query.get('continuation-token')
  let start =
    token === null ? current.findIndex((entry) => entry.key > startAfter) : Number.parseInt(token, 10)
  if (start < 0) start = current.length
  const page: StoredVersion[] = []
  const commonPrefixes: string[] = []
  let index = start
  for (; index < current.length && page.length + commonPrefixes.length < maxKeys; index++) {
    const entry = current[index] as StoredVersion
    const cut = delimiter ? entry.key.indexOf(delimiter, prefix.length) : -1
    if (cut < 0) page.push(entry)
    else {
      const common = entry.key.slice(0, cut + delimiter.length)
      if (commonPrefixes.at(-1) !== common) commonPrefixes.push(common)
    }
  }
  // The rest of the last common prefix belongs to it.
  const lastCommon = commonPrefixes.at(-1)
  while (lastCommon && index < current.length && current[index]?.key.startsWith(lastCommon)) index++
  const truncated = index < current.length
  const next = quirks.nextStart ? quirks.nextStart(start, pageSize) : index
  const body = page
    .map(
      (entry) =>
        `<Contents><Key>${escapeXml(entry.key)}</Key><LastModified>${entry.lastModified.toISOString()}</LastModified><ETag>"fba9dede5f27731c9771645a39863328"</ETag><Size>${entry.size}</Size><StorageClass>${escapeXml(entry.storageClass ?? 'STANDARD')}</StorageClass></Contents>`,
    )
    .join('')
  const prefixes = commonPrefixes
    .map((common) => `<CommonPrefixes><Prefix>${escapeXml(common)}</Prefix></CommonPrefixes>`)
    .join('')
  const nextToken = truncated ? `<NextContinuationToken>${tokenFor(next)}</NextContinuationToken>` : ''
  return `<ListBucketResult xmlns="${NS}"><Name>${escapeXml(bucket.name)}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length + commonPrefixes.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${body}${prefixes}${nextToken}</ListBucketResult>`
}
