import { ListMultipartUploadsCommand, ListPartsCommand, type S3Client } from '@aws-sdk/client-s3'
import { checkedSum } from '../../record/bucket-usage.js'
import { type MultipartUsage, SourceError } from '../types.js'
import type { SendRequest } from './client.js'
import { objectSize } from './errors.js'
import { type Marker, marker, markerIdentity, pages } from './pages.js'

/**
 * Incomplete multipart uploads of one bucket (ListMultipartUploads), and the bytes their parts
 * hold (ListParts, for the first `maxSized` uploads in listing order: one request per 1,000 parts
 * each, so the cost is bounded per bucket; the rest are counted as unsized). Uploads initiated at
 * least `staleDays` before the scan started are counted apart, with their sized bytes: what a
 * lifecycle AbortIncompleteMultipartUpload rule would reclaim. A store that does not implement
 * ListParts still has its uploads counted; the byte figures are then left out.
 */
export interface MultipartListing {
  readonly client: S3Client
  readonly bucket: string
  readonly signal: AbortSignal
  /** Sends one request with the source's retries and error classification. */
  readonly send: SendRequest
  readonly startedMs: number
  readonly maxSized: number
  readonly staleDays: number
  /**
   * The `hidden` group's figures: stale uploads and, with listParts, the bytes of the uploads.
   * false: only the count and the oldest start (the `multipart` group), and no ListParts request.
   */
  readonly hidden: boolean
  /** Whether to call ListParts (false once the store said it does not implement it). */
  readonly listParts: boolean
  /** The store answered ListParts with "not implemented". */
  onListPartsUnsupported(): void
}

/** S3's page size limit for uploads and parts alike. */
const PAGE_SIZE = 1000
const DAY_MS = 86_400_000

export async function measureMultipart(listing: MultipartListing): Promise<MultipartUsage> {
  const { client, bucket, signal } = listing
  const staleBeforeMs = listing.startedMs - listing.staleDays * DAY_MS
  const figures = { incomplete: 0, bytes: 0, unsized: 0, stale: 0, staleBytes: 0 }
  let oldestMs = Number.POSITIVE_INFINITY
  let sizing = listing.hidden && listing.listParts
  const action = `ListMultipartUploads ${bucket}`
  const uploads = pages({
    action,
    request: (position: Marker | undefined) =>
      listing.send(action, signal, (abortSignal) =>
        client.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            MaxUploads: PAGE_SIZE,
            KeyMarker: position?.key,
            UploadIdMarker: position?.id,
          }),
          { abortSignal },
        ),
      ),
    truncated: (page) => page.IsTruncated,
    next: (page) => marker(page.NextKeyMarker, page.NextUploadIdMarker),
    identify: markerIdentity,
  })
  for await (const page of uploads) {
    for (const upload of page.Uploads ?? []) {
      figures.incomplete++
      const initiated = upload.Initiated?.getTime()
      if (initiated !== undefined && initiated < oldestMs) oldestMs = initiated
      const stale = initiated !== undefined && initiated <= staleBeforeMs
      if (stale) figures.stale++
      let sized: number | undefined
      if (sizing && figures.incomplete <= listing.maxSized && upload.Key && upload.UploadId) {
        try {
          sized = await partsBytes(listing, upload.Key, upload.UploadId)
        } catch (error) {
          if (!(error instanceof SourceError && error.kind === 'unsupported')) throw error
          sizing = false
          listing.onListPartsUnsupported()
        }
      }
      if (sized === undefined) {
        figures.unsized++
        continue
      }
      figures.bytes = checkedSum(figures.bytes + sized, 'incomplete upload bytes')
      if (stale) figures.staleBytes += sized
    }
  }
  const { incomplete, stale, ...sizes } = figures
  return {
    incomplete,
    ...(listing.hidden ? { stale } : {}),
    ...(Number.isFinite(oldestMs) ? { oldestInitiatedSeconds: oldestMs / 1000 } : {}),
    ...(sizing ? sizes : {}),
  }
}

/** The bytes of one upload's parts; undefined when the upload is gone (completed or aborted meanwhile). */
async function partsBytes(
  listing: MultipartListing,
  key: string,
  uploadId: string,
): Promise<number | undefined> {
  const { client, bucket, signal } = listing
  const action = `ListParts ${bucket}`
  const parts = pages({
    action,
    request: (marker: string | undefined) =>
      listing.send(action, signal, (abortSignal) =>
        client.send(
          new ListPartsCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            MaxParts: PAGE_SIZE,
            PartNumberMarker: marker,
          }),
          { abortSignal },
        ),
      ),
    truncated: (page) => page.IsTruncated ?? (page.UploadId === undefined ? undefined : false),
    next: (page) => page.NextPartNumberMarker,
  })
  let bytes = 0
  try {
    for await (const page of parts)
      for (const part of page.Parts ?? [])
        bytes = checkedSum(bytes + objectSize(part.Size, action), 'incomplete upload bytes')
  } catch (error) {
    if (error instanceof SourceError && error.kind === 'missing') return undefined
    throw error
  }
  return bytes
}
