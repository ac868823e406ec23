import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'

/** An S3 request as tests reason about it: which operation, on which bucket. */
export interface S3Request {
  readonly method: string
  /** ListBuckets, ListObjectsV2, ListObjectVersions, ListMultipartUploads, PutObject, ... */
  readonly operation: string
  readonly bucket: string | undefined
  /** The object key of an object request (its path after the bucket; empty segments dropped). */
  readonly key?: string
  readonly query: URLSearchParams
  /** As sent: the signature, the session token (x-amz-security-token). */
  readonly headers: IncomingHttpHeaders
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
    else if (query.has('versioning')) operation = 'GetBucketVersioning'
    else if (query.has('object-lock')) operation = 'GetObjectLockConfiguration'
    else if (query.has('lifecycle')) operation = 'GetBucketLifecycleConfiguration'
    else if (query.has('tagging')) operation = 'GetBucketTagging'
    else operation = 'ListObjects'
  } else if (key.length === 0 && method === 'PUT') operation = 'CreateBucket'
  else if (key.length === 0 && method === 'DELETE') operation = 'DeleteBucket'
  else if (method === 'PUT') operation = 'PutObject'
  else if (method === 'GET' && query.has('uploadId')) operation = 'ListParts'
  return {
    method,
    operation,
    bucket: bucket ? decodeURIComponent(bucket) : undefined,
    ...(key.length > 0 ? { key: key.map(decodeURIComponent).join('/') } : {}),
    query,
    headers: request.headers,
  }
}

/** The error document S3 sends (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html). */
export function s3ErrorXml(code: string, message: string, resource: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource><RequestId>4442587FB7D0A2F9</RequestId></Error>`
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

const REQUEST_IDS = '<RequestId>4442587FB7D0A2F9</RequestId><HostId>dGVzdC1ob3N0LWlk</HostId>'

/** The access key id in a SigV4 Authorization header (`Credential=KEY/date/region/s3/aws4_request`). */
function accessKeyOf(request: S3Request): string {
  return /Credential=([^/]+)\//.exec(String(request.headers.authorization ?? ''))?.[1] ?? ''
}

/**
 * S3's answer to a signature made with a wrong secret key, as AWS sends it: it echoes the access
 * key id, the signature, and the canonical request, session token header included. Everything in
 * it reaches the SDK's error object, so it tests that no such field is ever logged.
 */
export function signatureMismatchXml(request: S3Request): string {
  const token = request.headers['x-amz-security-token']
  const canonical = `${request.method}\n/${request.bucket ?? ''}\n\nhost:${request.headers.host}\n${token ? `x-amz-security-token:${token}\n` : ''}`
  return `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message><AWSAccessKeyId>${escapeXml(accessKeyOf(request))}</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256</StringToSign><SignatureProvided>${escapeXml(/Signature=(\w+)/.exec(String(request.headers.authorization))?.[1] ?? '')}</SignatureProvided><CanonicalRequest>${escapeXml(canonical)}</CanonicalRequest>${REQUEST_IDS}</Error>`
}

/** S3's answer to an expired session token, as AWS sends it: the token itself comes back in Token-0. */
export function expiredTokenXml(request: S3Request): string {
  const token = String(request.headers['x-amz-security-token'] ?? accessKeyOf(request))
  return `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message><Token-0>${escapeXml(token)}</Token-0>${REQUEST_IDS}</Error>`
}
