/**
 * Where a bucket's newest complete inventory is: under S3_INVENTORY_DESTINATION's
 * `<prefix>/<source-bucket>/<config-id>/<YYYY-MM-DDTHH-MMZ>/`, the newest folder whose
 * manifest.checksum is there and is the MD5 of its manifest.json (AWS writes the checksum last:
 * without it, the inventory is still being delivered). A few small requests on the destination
 * bucket, none on the source bucket. Bounded: the folders listed (MAX_FOLDERS), the newest tried
 * (MAX_CANDIDATES), the manifest's bytes (MAX_MANIFEST_BYTES).
 */
import { createHash } from 'node:crypto'
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { SourceError } from '../../types.js'
import { readBounded } from '../../upstream-answer.js'
import type { SendRequest } from '../client.js'
import { listObjectsV2 } from '../listing-requests.js'
import { pages } from '../pages.js'
import { InventoryError } from './inventory-error.js'

/** S3_INVENTORY_DESTINATION, parsed: the bucket inventories are delivered to and the prefix. */
export interface InventoryDestination {
  readonly bucket: string
  /** '' or without a trailing slash. */
  readonly prefix: string
}

export function parseDestination(text: string): InventoryDestination | undefined {
  if (text === '') return undefined
  const slash = text.indexOf('/')
  const bucket = slash < 0 ? text : text.slice(0, slash)
  const prefix = slash < 0 ? '' : text.slice(slash + 1).replace(/\/+$/, '')
  return { bucket, prefix }
}

export interface InventoryRequests {
  readonly client: S3Client
  readonly destination: InventoryDestination
  readonly signal: AbortSignal
  readonly send: SendRequest
}

/** The newest complete inventory of a bucket: its folder and its manifest's text and MD5. */
export interface FoundInventory {
  /** `<prefix>/<bucket>/<config-id>/`: every data file is under it. */
  readonly folder: string
  readonly configuration: string
  readonly manifestKey: string
  readonly manifestMd5: string
  readonly manifestText: string
}

const MAX_FOLDERS = 10_000
const MAX_CANDIDATES = 4
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d-\d\dZ$/

function base(destination: InventoryDestination): string {
  return destination.prefix === '' ? '' : `${destination.prefix}/`
}

/** The source buckets the destination holds inventories of (its folders under the prefix). */
export async function bucketsWithInventory(requests: InventoryRequests): Promise<Set<string>> {
  const under = base(requests.destination)
  return new Set(await folders(requests, under))
}

/**
 * The newest complete inventory of `bucket`, or undefined when the destination holds none of it
 * (the bucket is then listed, or skipped). `configuration` (S3_INVENTORY_CONFIG_ID) picks one of
 * several; unset, a bucket with several is refused with their names.
 */
export async function findInventory(
  requests: InventoryRequests,
  bucket: string,
  configuration: string,
): Promise<FoundInventory | undefined> {
  const bucketFolder = `${base(requests.destination)}${bucket}/`
  const ids = await folders(requests, bucketFolder)
  let id: string | undefined
  if (configuration !== '') id = ids.includes(configuration) ? configuration : undefined
  else if (ids.length > 1) {
    const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', ...' : '')
    throw new InventoryError(
      `bucket has ${ids.length} inventory configurations (${shown}): set S3_INVENTORY_CONFIG_ID to the one to read`,
    )
  } else id = ids[0]
  if (id === undefined) return undefined
  const folder = `${bucketFolder}${id}/`
  const stamps = (await folders(requests, folder)).filter((name) => TIMESTAMP.test(name))
  if (stamps.length === 0) return undefined
  // The names sort as the times they are: the newest last.
  const newest = stamps.sort().reverse().slice(0, MAX_CANDIDATES)
  for (const stamp of newest) {
    const manifestKey = `${folder}${stamp}/manifest.json`
    const checksum = await getText(requests, `${folder}${stamp}/manifest.checksum`, 1024)
    if (checksum === undefined) continue
    const text = await getText(requests, manifestKey, MAX_MANIFEST_BYTES)
    if (text === undefined) continue
    const md5 = createHash('md5').update(text, 'utf8').digest('hex')
    if (md5 !== checksum.trim().toLowerCase()) continue
    return { folder, configuration: id, manifestKey, manifestMd5: md5, manifestText: text }
  }
  throw new InventoryError(
    `no complete inventory among the newest ${newest.length} under ${folder} (manifest.checksum missing or not the MD5 of manifest.json)`,
  )
}

/** The names of the folders directly under `prefix` in the destination bucket. */
async function folders(requests: InventoryRequests, prefix: string): Promise<string[]> {
  const { client, destination, signal } = requests
  const action = `ListObjectsV2 ${destination.bucket} (inventory)`
  const names: string[] = []
  const listing = pages({
    action,
    request: (token: string | undefined) =>
      requests.send(action, signal, (abortSignal) =>
        listObjectsV2(
          client,
          { Bucket: destination.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token },
          abortSignal,
        ),
      ),
    truncated: (page) => page.truncated,
    next: (page) => page.nextContinuationToken,
  })
  for await (const page of listing) {
    for (const folder of page.commonPrefixes) {
      if (!folder.startsWith(prefix) || !folder.endsWith('/')) continue
      names.push(folder.slice(prefix.length, -1))
      if (names.length > MAX_FOLDERS) {
        throw new InventoryError(`more than ${MAX_FOLDERS} folders under ${prefix} in ${destination.bucket}`)
      }
    }
  }
  return names
}

/** An object of the destination bucket as text, bounded; undefined when it is not there. */
async function getText(requests: InventoryRequests, key: string, limit: number): Promise<string | undefined> {
  const { client, destination, signal } = requests
  const action = `GetObject ${destination.bucket}/${key}`
  try {
    return await requests.send(action, signal, async (abortSignal) => {
      const answer = await client.send(new GetObjectCommand({ Bucket: destination.bucket, Key: key }), {
        abortSignal,
      })
      const body = answer.Body as AsyncIterable<Uint8Array> | undefined
      return (await readBounded(body ?? null, limit, `${key} bound (${limit} bytes)`)).toString('utf8')
    })
  } catch (error) {
    if (error instanceof SourceError && error.kind === 'missing') return undefined
    throw error
  }
}
