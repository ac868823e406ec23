import { execFile } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Why TLS tests cannot run here (no openssl command), or undefined when they can. */
export async function opensslSkipReason(): Promise<string | undefined> {
  try {
    await run('openssl', ['version'])
    return undefined
  } catch {
    return 'the openssl command is not installed (apt-get install openssl)'
  }
}

/** A certificate and its key, as PEM files in a test's temporary folder. */
export interface Issued {
  readonly name: string
  readonly certFile: string
  readonly keyFile: string
  readonly certPem: string
  readonly keyPem: string
  /** SHA-256 fingerprint as Node prints it (AA:BB:...), to tell which certificate a server sent. */
  readonly fingerprint256: string
}

async function issued(name: string, certFile: string, keyFile: string): Promise<Issued> {
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')])
  return {
    name,
    certFile,
    keyFile,
    certPem,
    keyPem,
    fingerprint256: new X509Certificate(certPem).fingerprint256,
  }
}

/**
 * Makes test certificates with the openssl command line in `dir`: nothing is committed, every run
 * gets fresh keys. EC P-256 keys, valid for two days.
 */
export class TestPki {
  constructor(readonly dir: string) {}

  /** A self-signed root CA. */
  async authority(name: string): Promise<Issued> {
    const certFile = join(this.dir, `${name}.crt`)
    const keyFile = join(this.dir, `${name}.key`)
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ])
    return issued(name, certFile, keyFile)
  }

  /**
   * A certificate signed by `issuer`: a server certificate for 127.0.0.1, a client certificate, or
   * an intermediate CA. The key file is what `openssl ecparam -genkey` writes: an EC PARAMETERS
   * block followed by an EC PRIVATE KEY block.
   */
  async issue(name: string, issuer: Issued, kind: 'server' | 'client' | 'intermediate'): Promise<Issued> {
    const certFile = join(this.dir, `${name}.crt`)
    const keyFile = join(this.dir, `${name}.key`)
    const csrFile = join(this.dir, `${name}.csr`)
    const extFile = join(this.dir, `${name}.ext`)
    const extensions = {
      server: ['subjectAltName=IP:127.0.0.1', 'extendedKeyUsage=serverAuth', 'basicConstraints=CA:FALSE'],
      client: ['extendedKeyUsage=clientAuth', 'basicConstraints=CA:FALSE'],
      intermediate: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'],
    }[kind]
    await writeFile(extFile, `${extensions.join('\n')}\n`)
    await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-out', keyFile])
    await run('openssl', ['req', '-new', '-key', keyFile, '-out', csrFile, '-subj', `/CN=${name}`])
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      csrFile,
      '-CA',
      issuer.certFile,
      '-CAkey',
      issuer.keyFile,
      '-set_serial',
      `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`,
      '-out',
      certFile,
      '-days',
      '2',
      '-extfile',
      extFile,
    ])
    return issued(name, certFile, keyFile)
  }

  /** What `openssl x509 -text` prints for a certificate: a long description, then the PEM block. */
  async describedPem(certificate: Issued): Promise<string> {
    const { stdout } = await run('openssl', ['x509', '-in', certificate.certFile, '-text'])
    return stdout
  }

  /** The key encrypted with a passphrase (PKCS#8 `ENCRYPTED PRIVATE KEY`). */
  async encryptedKey(certificate: Issued): Promise<string> {
    const { stdout } = await run('openssl', [
      'pkcs8',
      '-topk8',
      '-in',
      certificate.keyFile,
      '-passout',
      'pass:test-passphrase',
    ])
    return stdout
  }
}
