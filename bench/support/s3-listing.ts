import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describeS3Request, escapeXml, s3ErrorXml } from '../../test/support/s3-requests.js'

/**
 * An S3 endpoint that generates its listings instead of storing objects (filling s3rver with a
 * million objects takes hours): ListBuckets, ListObjectsV2 in pages of up to 1,000 keys with the
 * XML AWS documents (Prefix, Delimiter, StartAfter and MaxKeys as S3 answers them), and an empty
 * ListMultipartUploads. A bucket's name says what it holds: `b-<objects>-<latency ms>-<id>`, e.g.
 * `b-1000000-0-big`; every response of a bucket with a latency waits that long before answering,
 * as a remote store's time to first byte. Keys are flat (`key-000000123`) unless the id starts
 * with `nested`: then `tenant-07/day-031/obj-000123456`, 20 tenants of 50 days each.
 */

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/'
const MAX_KEYS = 1000
const MODIFIED_ORIGIN_MS = Date.UTC(2026, 0, 1)

interface ListingBucket {
  readonly objects: number
  readonly latencyMs: number
  readonly nested: boolean
}

export function listingBucketName(objects: number, latencyMs: number, id: string): string {
  return `b-${objects}-${latencyMs}-${id}`
}

function parseBucket(name: string): ListingBucket | undefined {
  const match = /^b-(\d+)-(\d+)-[a-z0-9]+$/.exec(name)
  return match
    ? { objects: Number(match[1]), latencyMs: Number(match[2]), nested: /^b-\d+-\d+-nested/.test(name) }
    : undefined
}

/** Object `index` of every bucket: sizes spread over MinIO's ranges, two storage classes. */
export function objectSize(index: number): number {
  return (index * 7919) % 10_000_000
}

/**
 * Objects overwritten since the start, by bucket: index to new size (a POST to
 * `/__overwrite/<bucket>/<first index>/<count>/<step>/<size>`, overwriteObjects below), so a
 * bench can change keys between rounds. Their modified time moves to the overwrite's.
 */
const overwritten = new Map<string, Map<number, { size: number; modifiedMs: number }>>()

function overwrite(url: string): boolean {
  const match = /^\/__overwrite\/([a-z0-9-]+)\/(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(url)
  if (!match) return false
  const [, bucket = '', first, count, step, size] = match
  const sizes = overwritten.get(bucket) ?? new Map()
  overwritten.set(bucket, sizes)
  for (let index = 0; index < Number(count); index++)
    sizes.set(Number(first) + index * Number(step), { size: Number(size), modifiedMs: Date.now() })
  return true
}

/** Overwrites `count` objects of `bucket` from index `first`, every `step`, with `size` bytes. */
export async function overwriteObjects(
  endpoint: string,
  bucket: string,
  change: { first: number; count: number; step: number; size: number },
): Promise<void> {
  const { first, count, step, size } = change
  const answer = await fetch(`${endpoint}/__overwrite/${bucket}/${first}/${count}/${step}/${size}`, {
    method: 'POST',
  })
  if (!answer.ok) throw new Error(`overwrite: ${answer.status}`)
}

function createListingServer(buckets: readonly string[]): Server {
  const known = new Set(buckets)
  return createServer((incoming, outgoing) => {
    incoming.resume()
    if (incoming.method === 'POST' && overwrite(incoming.url ?? '')) {
      outgoing.writeHead(204)
      outgoing.end()
      return
    }
    const request = describeS3Request(incoming)
    const reply = (status: number, body: string) => {
      outgoing.writeHead(status, { 'Content-Type': 'application/xml' })
      outgoing.end(body)
    }
    if (request.operation === 'ListBuckets') return reply(200, listBuckets(buckets))
    const bucket = request.bucket && known.has(request.bucket) ? parseBucket(request.bucket) : undefined
    if (!request.bucket || !bucket) {
      return reply(404, s3ErrorXml('NoSuchBucket', 'The specified bucket does not exist', incoming.url ?? ''))
    }
    const name = request.bucket
    let body: string
    if (request.operation === 'ListObjectsV2') body = listObjectsV2(name, bucket, request.query)
    else if (request.operation === 'ListMultipartUploads') body = listUploads(name)
    else return reply(501, s3ErrorXml('NotImplemented', 'not generated', incoming.url ?? ''))
    if (bucket.latencyMs > 0) setTimeout(() => reply(200, body), bucket.latencyMs)
    else reply(200, body)
  })
}

function listBuckets(buckets: readonly string[]): string {
  const entries = buckets
    .map(
      (name) => `<Bucket><Name>${name}</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate></Bucket>`,
    )
    .join('')
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ListAllMyBucketsResult xmlns="${NS}"><Owner><ID>bench</ID></Owner><Buckets>${entries}</Buckets></ListAllMyBucketsResult>`
}

const TENANTS = 20
const DAYS = 50

/** Object `index`'s key: increasing with `index`, so a listing is a walk over indexes. */
function objectKey(bucket: ListingBucket, index: number): string {
  if (!bucket.nested) return `key-${String(index).padStart(9, '0')}`
  const perTenant = Math.ceil(bucket.objects / TENANTS)
  const perDay = Math.ceil(perTenant / DAYS)
  const tenant = Math.floor(index / perTenant)
  const day = Math.floor((index % perTenant) / perDay)
  return `tenant-${String(tenant).padStart(2, '0')}/day-${String(day).padStart(3, '0')}/obj-${String(index).padStart(9, '0')}`
}

/** The first index whose key is greater than `key` (or, `orEqual`, not less). */
function firstAfter(bucket: ListingBucket, key: string, orEqual = false): number {
  let low = 0
  let high = bucket.objects
  while (low < high) {
    const middle = (low + high) >>> 1
    const candidate = objectKey(bucket, middle)
    if (candidate < key || (!orEqual && candidate === key)) low = middle + 1
    else high = middle
  }
  return low
}

function listObjectsV2(name: string, bucket: ListingBucket, query: URLSearchParams): string {
  const token = query.get('continuation-token')
  const prefix = query.get('prefix') ?? ''
  const delimiter = query.get('delimiter') ?? ''
  const startAfter = query.get('start-after') ?? ''
  const maxKeys = Math.min(MAX_KEYS, Number(query.get('max-keys') ?? MAX_KEYS))
  let index =
    token !== null
      ? Number(token)
      : Math.max(
          startAfter ? firstAfter(bucket, startAfter) : 0,
          prefix ? firstAfter(bucket, prefix, true) : 0,
        )
  let body = ''
  let entries = 0
  for (; index < bucket.objects && entries < maxKeys; entries++) {
    const key = objectKey(bucket, index)
    if (!key.startsWith(prefix)) {
      index = bucket.objects
      break
    }
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1
    if (cut >= 0) {
      const common = key.slice(0, cut + delimiter.length)
      body += `<CommonPrefixes><Prefix>${escapeXml(common)}</Prefix></CommonPrefixes>`
      index = firstAfter(bucket, `${common}\u{10FFFF}`)
      continue
    }
    const changed = overwritten.get(name)?.get(index)
    const modified = new Date(changed?.modifiedMs ?? MODIFIED_ORIGIN_MS - index * 1000).toISOString()
    const storageClass = index % 10 === 0 ? 'STANDARD_IA' : 'STANDARD'
    body += `<Contents><Key>${escapeXml(key)}</Key><LastModified>${modified}</LastModified><ETag>"fba9dede5f27731c9771645a39863328"</ETag><Size>${changed?.size ?? objectSize(index)}</Size><StorageClass>${storageClass}</StorageClass></Contents>`
    index++
  }
  const truncated = index < bucket.objects && objectKey(bucket, index).startsWith(prefix)
  const next = truncated ? `<NextContinuationToken>${index}</NextContinuationToken>` : ''
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${NS}"><Name>${escapeXml(name)}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${entries}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${body}${next}</ListBucketResult>`
}

function listUploads(name: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="${NS}"><Bucket>${escapeXml(name)}</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`
}

export interface ListingProcess {
  readonly endpoint: string
  close(): Promise<void>
}

/**
 * The listing server in a child process of its own, so generating pages does not share the
 * measured process's event loop (as a real store would not).
 */
export async function startListingProcess(buckets: readonly string[]): Promise<ListingProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), ...buckets],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /listening (\d+)/.exec(output)
      if (match) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`listing server exited (${code})`)))
  })
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createListingServer(process.argv.slice(2))
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`)
  })
  process.once('SIGTERM', () => {
    server.closeAllConnections()
    server.close()
  })
}
