import { X509Certificate } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import { ConfigError } from '../../config/config-error.js'

/** A CA bundle is a few certificates; anything larger is not one. */
const MAX_BYTES = 4 * 1024 * 1024

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/**
 * S3_CA_FILE, read once at start: the PEM certificates in it, each checked to parse. A missing,
 * unreadable or certificate-less file refuses start-up with one line naming the variable (a store
 * behind a private CA would otherwise fail every scan with a TLS error).
 */
export function readCaFile(path: string): string[] {
  const refuse = (reason: string): never => {
    throw new ConfigError([
      `S3_CA_FILE=${JSON.stringify(path)}: ${reason}; expected a PEM file of CA certificates`,
    ])
  }
  let text = ''
  try {
    const stats = statSync(path)
    if (!stats.isFile()) refuse('not a regular file')
    if (stats.size > MAX_BYTES) refuse(`larger than ${MAX_BYTES} bytes`)
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (error instanceof ConfigError) throw error
    refuse(`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? []
  if (blocks.length === 0) refuse('holds no -----BEGIN CERTIFICATE----- block')
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block)
    } catch (error) {
      refuse(`certificate ${index + 1} does not parse (${(error as Error).message})`)
    }
  })
  return blocks
}

/**
 * The trust of the S3 client with S3_CA_FILE: Node's roots, NODE_EXTRA_CA_CERTS's certificates
 * (giving `ca` replaces the defaults, extra ones included, so they are added back) and the file's.
 */
export function trustWith(caCertificates: readonly string[]): string[] {
  const extraPath = process.env.NODE_EXTRA_CA_CERTS
  let extra: string[] = []
  if (extraPath) {
    try {
      extra = readFileSync(extraPath, 'utf8').match(PEM_CERTIFICATE) ?? []
    } catch {
      // Node itself warned at start that it could not read it; it trusts none of it either.
    }
  }
  return [...rootCertificates, ...extra, ...caCertificates]
}
