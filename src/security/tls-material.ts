import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createSecureContext, type SecureContextOptions } from 'node:tls'
import { ConfigError } from '../config/load.js'
import { shownValue } from '../config/shown-value.js'
import { readFailure } from './file-poller.js'
import { certificateBlocks, privateKeyBlocks } from './pem.js'

export interface TlsFiles {
  readonly certFile: string
  readonly keyFile: string
  /** Set for mutual TLS: clients must present a certificate these CAs signed. */
  readonly clientCaFile: string
  /** How a refusal names the files: the TLS_* variables unless the web configuration file set them. */
  readonly names?: TlsFileNames
  /** Protocol choices applied with the files (the web configuration file's versions, ciphers, curves). */
  readonly policy?: TlsPolicy
}

/** Names of the three files in a refusal: `${within}${cert}="path": reason`. */
interface TlsFileNames {
  readonly cert: string
  readonly key: string
  readonly clientCa: string
  /** What precedes the name: the web configuration file, when the names are its keys. */
  readonly within: string
}

export type TlsPolicy = Pick<
  SecureContextOptions,
  'minVersion' | 'maxVersion' | 'ciphers' | 'ecdhCurve' | 'honorCipherOrder'
>

const VARIABLE_NAMES: TlsFileNames = {
  cert: 'TLS_CERT_FILE',
  key: 'TLS_KEY_FILE',
  clientCa: 'TLS_CLIENT_CA_FILE',
  within: '',
}

/** A refusal naming one of the files: `TLS_CERT_FILE="/tls/tls.crt": reason`. */
export function tlsFileProblem(
  files: TlsFiles,
  which: 'cert' | 'key' | 'clientCa',
  reason: string,
): ConfigError {
  const names = files.names ?? VARIABLE_NAMES
  const path = { cert: files.certFile, key: files.keyFile, clientCa: files.clientCaFile }[which]
  return new ConfigError([`${names.within}${names[which]}=${shownValue(path ?? '')}: ${reason}`])
}

/** Validated material, ready for `https.createServer` or `server.setSecureContext`. */
export interface TlsMaterial {
  readonly context: SecureContextOptions
  /** What the logs may say about the certificate (nothing secret). */
  readonly summary: {
    readonly subject: string
    readonly validFrom: string
    readonly validTo: string
    readonly fingerprint256: string
    readonly chainLength: number
  }
}

/** The files' paths in a fixed order, as FilePoller reads them. */
export function tlsPaths(files: TlsFiles): string[] {
  return files.clientCaFile
    ? [files.certFile, files.keyFile, files.clientCaFile]
    : [files.certFile, files.keyFile]
}

/** Reads the TLS files; a file that cannot be read is a ConfigError naming its variable. */
export async function readTlsFiles(files: TlsFiles): Promise<Buffer[]> {
  const which = ['cert', 'key', 'clientCa'] as const
  // Settled in order, so that when several files fail the line names the first of them every time
  // (Promise.all rejects with whichever read happened to fail first).
  const reads = await Promise.allSettled(tlsPaths(files).map((path) => readFile(path)))
  return reads.map((read, index) => {
    if (read.status === 'fulfilled') return read.value
    throw tlsFileProblem(files, which[index] ?? 'cert', readFailure(read.reason))
  })
}

/**
 * Checks the files' contents as a whole: certificate blocks (chain order kept), exactly one
 * unencrypted private key that matches the leaf certificate, and CA blocks for mutual TLS. Throws
 * a ConfigError with one line naming the variable at fault.
 */
export function parseTlsMaterial(files: TlsFiles, contents: readonly Buffer[]): TlsMaterial {
  const [certText = '', keyText = '', caText] = contents.map((content) => content.toString('utf8'))
  const certProblem = (reason: string) => tlsFileProblem(files, 'cert', reason)
  const keyProblem = (reason: string) => tlsFileProblem(files, 'key', reason)
  const caProblem = (reason: string) => tlsFileProblem(files, 'clientCa', reason)

  const chain = certificateBlocks(certText)
  const certificates = parseCertificates(chain, certProblem)
  const leaf = certificates[0]
  if (!leaf) throw certProblem('no CERTIFICATE block found')

  const keys = privateKeyBlocks(keyText)
  if (keys.length === 0) throw keyProblem('no PRIVATE KEY block found')
  if (keys.length > 1) throw keyProblem(`holds ${keys.length} private keys; expected one`)
  const keyPem = keys[0]?.pem ?? ''
  const key = parsePrivateKey(keyPem, keyProblem)
  if (!leaf.checkPrivateKey(key))
    throw keyProblem(
      `does not match the certificate in ${(files.names ?? VARIABLE_NAMES).cert} (a key of another certificate?)`,
    )

  const context: SecureContextOptions = { ...files.policy, cert: chain.join(''), key: keyPem }
  if (caText !== undefined) {
    const authorities = certificateBlocks(caText)
    if (authorities.length === 0) throw caProblem('no CERTIFICATE block found')
    parseCertificates(authorities, caProblem)
    context.ca = authorities
  }
  try {
    // What the server will do with it, so a problem shows now rather than at the first handshake.
    createSecureContext(context)
  } catch (error) {
    throw certProblem(`unusable (${(error as Error).message})`)
  }
  return {
    context,
    summary: {
      subject: leaf.subject.replace(/\n/g, ', '),
      validFrom: new Date(leaf.validFrom).toISOString(),
      validTo: new Date(leaf.validTo).toISOString(),
      fingerprint256: leaf.fingerprint256,
      chainLength: chain.length,
    },
  }
}

/** Why the leaf certificate cannot serve at `nowMs`, or undefined when it is within its dates. */
export function validityProblem(
  summary: TlsMaterial['summary'],
  nowMs: number,
): { readonly kind: 'expired' | 'not yet valid'; readonly reason: string } | undefined {
  const dates = `valid from ${summary.validFrom} to ${summary.validTo}`
  if (nowMs > Date.parse(summary.validTo))
    return { kind: 'expired', reason: `the certificate has expired (${dates})` }
  if (nowMs < Date.parse(summary.validFrom))
    return { kind: 'not yet valid', reason: `the certificate is not valid yet (${dates})` }
  return undefined
}

function parseCertificates(
  blocks: readonly string[],
  problem: (reason: string) => ConfigError,
): X509Certificate[] {
  return blocks.map((pem, index) => {
    try {
      return new X509Certificate(pem)
    } catch (error) {
      throw problem(`CERTIFICATE block ${index + 1} is not a valid certificate (${(error as Error).message})`)
    }
  })
}

function parsePrivateKey(pem: string, problem: (reason: string) => ConfigError): KeyObject {
  if (/^-----BEGIN ENCRYPTED |^Proc-Type: 4,ENCRYPTED/m.test(pem))
    throw problem('the private key is encrypted; give an unencrypted key')
  try {
    return createPrivateKey(pem)
  } catch (error) {
    // Node's message names the parsing step, never the key's bytes.
    throw problem(`not a valid private key (${(error as Error).message})`)
  }
}
