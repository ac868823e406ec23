/**
 * One-line hints for the S3 errors an operator meets while setting the exporter up, added to the
 * error's message (the log line, the landing page), as RGW admin errors get theirs: the store's
 * code alone (SignatureDoesNotMatch, "socket hang up") rarely says which setting to fix.
 */

export interface HintInput {
  /** The SDK's error name (`SignatureDoesNotMatch`) or `Error`. */
  readonly name: string
  /** The socket or OpenSSL code (`ENOTFOUND`, `EPROTO`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`). */
  readonly code?: string
  readonly message: string
  /** What failed: `ListBuckets`, `ListObjectsV2 <bucket>`... */
  readonly action: string
  /** The host name a lookup failed for, when the error names one. */
  readonly hostname?: string
}

/** Codes Node gives a certificate the client does not trust. */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
])

const BY_NAME: Readonly<Record<string, string>> = {
  SignatureDoesNotMatch:
    "the store computed another signature: a wrong S3_SECRET_ACCESS_KEY, an S3_REGION other than the store's, or a proxy rewriting the request (Host, path or headers)",
  InvalidAccessKeyId:
    'the store does not know S3_ACCESS_KEY_ID: check the key, and that S3_ENDPOINT is the store it was issued by',
  RequestTimeTooSkewed:
    "this host's clock differs from the store's by more than 15 minutes: synchronise it (NTP)",
}

/** The hint for this error, or undefined when there is nothing to add to its message. */
export function s3Hint(input: HintInput): string | undefined {
  const byName = BY_NAME[input.name]
  if (byName) return byName
  const { code = '', message } = input
  if (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(message)) {
    return 'S3_ENDPOINT says https:// but the port answers plain HTTP: use http://, or the TLS port'
  }
  // Node's words for a connection closed before any answer: what a TLS port does to plain HTTP.
  if (/socket hang up/.test(message)) {
    return 'the connection was closed without an answer: if the port speaks TLS, S3_ENDPOINT needs https://'
  }
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return "the store's certificate is not signed by a trusted CA: set S3_CA_FILE to the PEM bundle of its CA (or NODE_EXTRA_CA_CERTS)"
  }
  if (code === 'CERT_HAS_EXPIRED') return "the store's certificate has expired"
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return "the store's certificate does not name the host of S3_ENDPOINT: use the name it was issued for"
  }
  if (code === 'ENOTFOUND' && input.hostname) {
    const bucket = input.action.split(' ')[1]
    if (bucket && input.hostname.startsWith(`${bucket}.`)) {
      return `the bucket was addressed as a host name (${input.hostname}): stores without wildcard DNS need S3_FORCE_PATH_STYLE=true`
    }
    return `${input.hostname} does not resolve: check the host in S3_ENDPOINT`
  }
  return undefined
}
