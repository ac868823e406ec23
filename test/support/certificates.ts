import { execFile } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
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

/** A new EC key (`openssl ecparam -genkey`) and a signing request for CN=`name`. */
async function keyAndRequest(name: string, keyFile: string, csrFile: string): Promise<void> {
  await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-out', keyFile])
  await run('openssl', ['req', '-new', '-key', keyFile, '-out', csrFile, '-subj', `/CN=${name}`])
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
    await keyAndRequest(name, keyFile, csrFile)
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

  /**
   * A server certificate for 127.0.0.1 signed by `issuer` with the validity dates given (whole
   * seconds, UTC): expired or not yet valid ones. `openssl x509 -req` on OpenSSL 3.0 only counts
   * days from now, so this uses `openssl ca` with a throwaway database in a folder of its own.
   */
  async issueDated(name: string, issuer: Issued, notBefore: Date, notAfter: Date): Promise<Issued> {
    const folder = join(this.dir, `${name}.ca`)
    await mkdir(folder, { recursive: true })
    const certFile = join(this.dir, `${name}.crt`)
    const keyFile = join(this.dir, `${name}.key`)
    const csrFile = join(folder, 'request.csr')
    const configFile = join(folder, 'ca.cnf')
    await writeFile(join(folder, 'index.txt'), '')
    await writeFile(join(folder, 'serial'), `${Date.now().toString(16).padStart(16, '0')}\n`)
    await writeFile(
      configFile,
      [
        '[ca]',
        'default_ca = test',
        '[test]',
        `database = ${join(folder, 'index.txt')}`,
        `new_certs_dir = ${folder}`,
        `serial = ${join(folder, 'serial')}`,
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '[server]',
        'subjectAltName = IP:127.0.0.1',
        'extendedKeyUsage = serverAuth',
        'basicConstraints = CA:FALSE',
        '',
      ].join('\n'),
    )
    const stamp = (date: Date) => `${date.toISOString().replace(/[-:T]|\.\d+/g, '')}`
    await keyAndRequest(name, keyFile, csrFile)
    await run('openssl', [
      'ca',
      '-batch',
      '-notext',
      '-config',
      configFile,
      '-cert',
      issuer.certFile,
      '-keyfile',
      issuer.keyFile,
      '-in',
      csrFile,
      '-out',
      certFile,
      '-extensions',
      'server',
      '-startdate',
      stamp(notBefore),
      '-enddate',
      stamp(notAfter),
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
