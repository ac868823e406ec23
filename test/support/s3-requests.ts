import type { IncomingMessage } from 'node:http'

/** An S3 request as tests reason about it: which operation, on which bucket. */
export interface S3Request {
  readonly method: string
  /** ListBuckets, ListObjectsV2, ListObjectVersions, ListMultipartUploads, PutObject, ... */
  readonly operation: string
  readonly bucket: string | undefined
  readonly query: URLSearchParams
}

/** Names the S3 operation of a path-style request (the subset the exporter and fixtures use). */
export function describeS3Request(request: IncomingMessage): S3Request {
  const url = new URL(request.url ?? '/', 'http://localhost')
  const [bucket, ...key] = url.pathname.split('/').filter((part) => part.length > 0)
  const method = request.method ?? 'GET'
  const query = url.searchParams
  let operation = `${method} ${url.pathname}`
  if (!bucket) operation = method === 'GET' ? 'ListBuckets' : operation
  else if (key.length === 0 && method === 'GET') {
    if (query.has('versions')) operation = 'ListObjectVersions'
    else if (query.has('uploads')) operation = 'ListMultipartUploads'
    else if (query.get('list-type') === '2') operation = 'ListObjectsV2'
    else operation = 'ListObjects'
  } else if (key.length === 0 && method === 'PUT') operation = 'CreateBucket'
  else if (key.length === 0 && method === 'DELETE') operation = 'DeleteBucket'
  else if (method === 'PUT') operation = 'PutObject'
  return { method, operation, bucket: bucket ? decodeURIComponent(bucket) : undefined, query }
}

/** The error document S3 sends (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html). */
export function s3ErrorXml(code: string, message: string, resource: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource><RequestId>4442587FB7D0A2F9</RequestId></Error>`
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
