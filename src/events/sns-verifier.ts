import { verify, X509Certificate } from 'node:crypto'
import { getFromSns } from './sns-fetch.js'
import { isSnsUrl, type SnsMessage, stringToSign } from './sns-message.js'

/** A signing certificate is a few kilobytes; kept by URL, at most this many. */
const MAX_CERTIFICATE_BYTES = 16 * 1024
const MAX_CACHED_CERTIFICATES = 16
/** A certificate kept is fetched again after this long. */
const CACHE_MS = 3_600_000

/** Why a message failed verification: its certificate could not be had, or its signature is wrong. */
export type Verdict = 'verified' | 'sns_certificate' | 'sns_signature'

interface Cached {
  readonly certificate: Promise<X509Certificate>
  readonly fetchedAtMs: number
}

/**
 * Verifies SNS message signatures (SignatureVersion 1: RSA SHA1; 2: RSA SHA256) with the signing
 * certificate the message names, fetched only from `https://sns.<region>.amazonaws.com` and kept
 * (bounded, by URL). A certificate that fails to come is not kept: the next message tries again.
 */
export class SnsVerifier {
  readonly #certificates = new Map<string, Cached>()

  async verify(message: SnsMessage): Promise<Verdict> {
    if (!isSnsUrl(message.SigningCertURL) || !new URL(message.SigningCertURL).pathname.endsWith('.pem'))
      return 'sns_certificate'
    let certificate: X509Certificate
    try {
      certificate = await this.#certificate(message.SigningCertURL)
    } catch {
      return 'sns_certificate'
    }
    const now = Date.now()
    if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
      return 'sns_certificate'
    const algorithm = message.SignatureVersion === '1' ? 'sha1' : 'sha256'
    const signature = Buffer.from(message.Signature, 'base64')
    try {
      return verify(algorithm, Buffer.from(stringToSign(message)), certificate.publicKey, signature)
        ? 'verified'
        : 'sns_signature'
    } catch {
      return 'sns_signature'
    }
  }

  #certificate(url: string): Promise<X509Certificate> {
    const cached = this.#certificates.get(url)
    if (cached && Date.now() - cached.fetchedAtMs < CACHE_MS) return cached.certificate
    this.#certificates.delete(url)
    const certificate = getFromSns(url, MAX_CERTIFICATE_BYTES).then((answer) => {
      if (answer.status !== 200) throw new Error(`certificate answered ${answer.status}`)
      return new X509Certificate(answer.body)
    })
    // Oldest first out: a Map iterates in insertion order.
    if (this.#certificates.size >= MAX_CACHED_CERTIFICATES) {
      const oldest = this.#certificates.keys().next().value
      if (oldest !== undefined) this.#certificates.delete(oldest)
    }
    this.#certificates.set(url, { certificate, fetchedAtMs: Date.now() })
    certificate.catch(() => {
      if (this.#certificates.get(url)?.certificate === certificate) this.#certificates.delete(url)
    })
    return certificate
  }
}
