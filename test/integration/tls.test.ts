import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { ConfigError } from '../../src/config/load.js'
import { type Issued, opensslSkipReason, TestPki } from '../support/certificates.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { httpsGet } from '../support/https.js'
import { waitFor } from '../support/wait-for.js'

const skip = await opensslSkipReason()

let dir: string
let pki: TestPki
let root: Issued
let serverA: Issued
let serverB: Issued
before(async () => {
  if (skip) return
  dir = await mkdtemp(join(tmpdir(), 'objstore-tls-'))
  pki = new TestPki(dir)
  root = await pki.authority('test-root-ca')
  serverA = await pki.issue('server-a', root, 'server')
  serverB = await pki.issue('server-b', root, 'server')
})
after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined))

/** Writes a file by rename, as an atomic rotation would (a reader sees old or new, never half). */
async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.new`
  await writeFile(temporary, content)
  await rename(temporary, path)
}

/** Waits (bounded) for a log line; rotation is observed through the exporter's own report. */
async function waitForLog(
  running: RunningExporter,
  matches: (line: Record<string, unknown>) => boolean,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const line = running.logs.lines.find(matches)
    if (line) return line
    if (Date.now() > deadline) throw new Error(`log line not seen: ${JSON.stringify(running.logs.lines)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Copies a certificate's files into a folder of their own, which the exporter reads. */
async function installed(name: string, certificate: Issued): Promise<{ certFile: string; keyFile: string }> {
  const folder = join(dir, name)
  await mkdir(folder, { recursive: true })
  const certFile = join(folder, 'tls.crt')
  const keyFile = join(folder, 'tls.key')
  await writeFile(certFile, certificate.certPem)
  await writeFile(keyFile, certificate.keyPem)
  return { certFile, keyFile }
}

/** The exporter serving `files`, read again every second; closed when the test ends. */
async function startRotating(
  t: { after: (fn: () => Promise<void>) => void },
  files: { certFile: string; keyFile: string },
): Promise<RunningExporter> {
  const running = await startExporter({
    TLS_CERT_FILE: files.certFile,
    TLS_KEY_FILE: files.keyFile,
    SECURITY_FILES_RELOAD_SECONDS: '1',
  })
  t.after(() => running.close())
  return running
}

test('HTTPS from a certificate on disk: a scrape over TLS, and plain HTTP gets no metrics', {
  skip,
}, async (t) => {
  const files = await installed('basic', serverA)
  const running = await startExporter({ TLS_CERT_FILE: files.certFile, TLS_KEY_FILE: files.keyFile })
  t.after(() => running.close())
  assert.match(running.baseUrl, /^https:\/\/127\.0\.0\.1:\d+$/)
  const answer = await httpsGet(`${running.baseUrl}/metrics`, { ca: root.certPem })
  assert.equal(answer.status, 200)
  assert.equal(answer.fingerprint256, serverA.fingerprint256)
  const scrape = parseExposition(answer.body)
  assert.ok(sampleValue(scrape, 'objstore_node_drive_total_bytes', { drive: running.config.DATA_DIR }) > 0)
  // A client that does not trust the CA refuses the server: the certificate is really in use.
  await assert.rejects(httpsGet(`${running.baseUrl}/metrics`, { ca: serverB.certPem }), /certificate/i)
  // Plain HTTP on the TLS port: the handshake fails and not one byte of metrics comes back.
  const reply = await new Promise<string>((resolve) => {
    const socket = connect(running.port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
    })
    socket.on('close', () => resolve(received))
    socket.on('error', () => resolve(received))
    socket.end('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  })
  assert.doesNotMatch(reply, /objstore_/)
  const loaded = running.logs.lines.find((line) => line.msg === 'TLS certificate loaded')
  assert.equal(loaded?.fingerprint256, serverA.fingerprint256)
})

test('a connection that never starts its TLS handshake is closed after HEADERS_TIMEOUT_MS', {
  skip,
}, async (t) => {
  const files = await installed('silent', serverA)
  const running = await startExporter({
    TLS_CERT_FILE: files.certFile,
    TLS_KEY_FILE: files.keyFile,
    HEADERS_TIMEOUT_MS: '2000',
  })
  t.after(() => running.close())
  const socket = connect(running.port, '127.0.0.1')
  t.after(() => socket.destroy())
  let closed = false
  socket.on('close', () => {
    closed = true
  })
  socket.on('error', () => undefined)
  // A bound far above the configured 2 s and far below Node's default handshake timeout (120 s).
  await waitFor('the silent TLS connection closed', () => closed, { timeoutMs: 30_000, intervalMs: 50 })
})

test('a rotated certificate reaches new clients without a restart; a bad rotation keeps the old one', {
  skip,
}, async (t) => {
  const files = await installed('rotation', serverA)
  const running = await startRotating(t, files)
  const url = `${running.baseUrl}/metrics`
  assert.equal((await httpsGet(url, { ca: root.certPem })).fingerprint256, serverA.fingerprint256)

  // cert-manager style: key and certificate replaced on disk.
  await replaceFile(files.keyFile, serverB.keyPem)
  await replaceFile(files.certFile, serverB.certPem)
  await waitForLog(
    running,
    (line) => line.msg === 'TLS certificate reloaded' && line.fingerprint256 === serverB.fingerprint256,
  )
  const rotated = await httpsGet(url, { ca: root.certPem })
  assert.equal(rotated.status, 200)
  assert.equal(rotated.fingerprint256, serverB.fingerprint256)

  // A botched rotation: garbage in the certificate file. Logged once; B stays in use.
  await replaceFile(files.certFile, 'this is not a certificate\n')
  const refused = await waitForLog(running, (line) =>
    String(line.msg).startsWith('TLS files changed but cannot be used'),
  )
  assert.match(String(refused.reason), /^TLS_CERT_FILE=".*tls\.crt": no CERTIFICATE block found$/)
  assert.equal((await httpsGet(url, { ca: root.certPem })).fingerprint256, serverB.fingerprint256)

  // Another: a certificate with the key of another one.
  await replaceFile(files.certFile, serverA.certPem)
  const mismatch = await waitForLog(running, (line) => /does not match/.test(String(line.reason)))
  assert.match(
    String(mismatch.reason),
    /^TLS_KEY_FILE=".*tls\.key": does not match the certificate in TLS_CERT_FILE/,
  )
  assert.equal((await httpsGet(url, { ca: root.certPem })).fingerprint256, serverB.fingerprint256)

  // A vanished file is reported, and the pair in use stays.
  await rm(files.keyFile)
  await waitForLog(running, (line) => /cannot read \(ENOENT/.test(String(line.reason)))
  assert.equal((await httpsGet(url, { ca: root.certPem })).fingerprint256, serverB.fingerprint256)

  // And the fixed pair is picked up again.
  await replaceFile(files.keyFile, serverA.keyPem)
  await waitForLog(
    running,
    (line) => line.msg === 'TLS certificate reloaded' && line.fingerprint256 === serverA.fingerprint256,
  )
  assert.equal((await httpsGet(url, { ca: root.certPem })).fingerprint256, serverA.fingerprint256)
  const refusals = running.logs.lines.filter((line) => String(line.msg).startsWith('TLS files changed but'))
  assert.equal(refusals.length, 2, 'each bad version is reported once, not on every poll')
  const everything = JSON.stringify(running.logs.lines)
  assert.doesNotMatch(everything, /PRIVATE KEY|BEGIN/, 'no PEM material in any log line')
})

test('a rotation to an expired or not-yet-valid certificate keeps the one in use (logged once); one valid shortly is applied when it starts', {
  skip,
}, async (t) => {
  const day = 24 * 3600 * 1000
  const expired = await pki.issueDated(
    'server-expired',
    root,
    new Date(Date.now() - 3 * day),
    new Date(Date.now() - day),
  )
  const future = await pki.issueDated(
    'server-future',
    root,
    new Date(Date.now() + 300 * day),
    new Date(Date.now() + 302 * day),
  )
  const files = await installed('validity', serverA)
  const running = await startRotating(t, files)
  const url = `${running.baseUrl}/metrics`
  const served = async () => (await httpsGet(url, { ca: root.certPem })).fingerprint256
  const refusals = (pattern: RegExp) =>
    running.logs.lines.filter(
      (line) =>
        String(line.msg).startsWith('TLS files changed but cannot be used') &&
        pattern.test(String(line.reason)),
    )
  const install = async (certificate: Issued) => {
    await replaceFile(files.keyFile, certificate.keyPem)
    await replaceFile(files.certFile, certificate.certPem)
  }

  await install(expired)
  await waitForLog(running, () => refusals(/has expired/).length > 0)
  assert.match(
    String(refusals(/has expired/)[0]?.reason),
    /^TLS_CERT_FILE=".*tls\.crt": the certificate has expired \(valid from \S+ to \S+\)$/,
  )
  assert.equal(await served(), serverA.fingerprint256)

  await install(future)
  await waitForLog(running, () => refusals(/not valid yet/).length > 0)
  assert.equal(await served(), serverA.fingerprint256)
  // Several polls of the same files: still one line each.
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  assert.equal(await served(), serverA.fingerprint256)
  assert.equal(refusals(/has expired/).length, 1)
  assert.equal(refusals(/not valid yet/).length, 1)

  // Valid from a few seconds ahead (an issuer whose clock runs ahead): applied once it starts,
  // although the files do not change again.
  const soon = await pki.issueDated(
    'server-soon',
    root,
    new Date(Date.now() + 4_000),
    new Date(Date.now() + day),
  )
  await install(soon)
  const reloaded = await waitForLog(
    running,
    (line) => line.msg === 'TLS certificate reloaded' && line.fingerprint256 === soon.fingerprint256,
  )
  assert.ok(Number(reloaded.time) >= Date.parse(String(reloaded.validFrom)), 'not applied before it is valid')
  assert.equal(await served(), soon.fingerprint256)
  const applied = running.logs.lines.filter((line) => line.msg === 'TLS certificate reloaded')
  assert.deepEqual(
    applied.map((line) => line.fingerprint256),
    [soon.fingerprint256],
    'neither the expired nor the future certificate was ever applied',
  )
})

test('a chain file with explanatory text around the blocks: served in order, trusted through the root', {
  skip,
}, async (t) => {
  const intermediate = await pki.issue('test-intermediate-ca', root, 'intermediate')
  const leaf = await pki.issue('server-chained', intermediate, 'server')
  const folder = join(dir, 'chain')
  await mkdir(folder, { recursive: true })
  const certFile = join(folder, 'fullchain.pem')
  const keyFile = join(folder, 'privkey.pem')
  // The leaf as `openssl x509 -text` prints it, then the intermediate with PKCS#12-export style
  // attribute lines and CRLF line ends, as such files arrive from other tools.
  const intermediateWithText = `Bag Attributes\n    friendlyName: intermediate\nsubject=CN = test-intermediate-ca\nissuer=CN = test-root-ca\n${intermediate.certPem}`
  await writeFile(
    certFile,
    `# server certificate, then the chain\n${await pki.describedPem(leaf)}\n${intermediateWithText.replace(/\n/g, '\r\n')}trailing notes\n`,
  )
  // The key as `openssl ecparam -genkey` writes it (EC PARAMETERS block first), after a comment.
  await writeFile(keyFile, `key for server-chained, do not share\n${leaf.keyPem}`)
  assert.match(leaf.keyPem, /BEGIN EC PARAMETERS[\s\S]*BEGIN EC PRIVATE KEY/)

  const running = await startExporter({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile })
  t.after(() => running.close())
  // The client trusts only the root: it succeeds only if the server sends the intermediate too.
  const answer = await httpsGet(`${running.baseUrl}/metrics`, { ca: root.certPem })
  assert.equal(answer.status, 200)
  assert.equal(answer.fingerprint256, leaf.fingerprint256)
  assert.equal(answer.issuerCommonName, 'test-intermediate-ca')
  const loaded = running.logs.lines.find((line) => line.msg === 'TLS certificate loaded')
  assert.equal(loaded?.chainLength, 2)
})

test('mutual TLS: only clients with a certificate from TLS_CLIENT_CA_FILE get in', { skip }, async (t) => {
  const clientCa = await pki.authority('test-client-ca')
  const prometheus = await pki.issue('prometheus', clientCa, 'client')
  const stranger = await pki.issue('stranger', root, 'client')
  const files = await installed('mutual', serverA)
  const running = await startExporter({
    TLS_CERT_FILE: files.certFile,
    TLS_KEY_FILE: files.keyFile,
    TLS_CLIENT_CA_FILE: clientCa.certFile,
    METRICS_AUTH_TOKEN: 'mutual-tls-and-a-token',
  })
  t.after(() => running.close())
  const url = `${running.baseUrl}/metrics`
  const withCertificate = { ca: root.certPem, cert: prometheus.certPem, key: prometheus.keyPem }
  const authorised = { authorization: 'Bearer mutual-tls-and-a-token' }

  await assert.rejects(httpsGet(url, { ca: root.certPem, headers: authorised }), /alert certificate required/)
  await assert.rejects(
    httpsGet(url, { ca: root.certPem, cert: stranger.certPem, key: stranger.keyPem, headers: authorised }),
    // TLS 1.3: the server checks the certificate after the client's handshake ends, and hangs up.
    /alert|socket hang up|ECONNRESET/,
  )
  // The certificate opens the connection; the token is still required on top.
  assert.equal((await httpsGet(url, withCertificate)).status, 401)
  const answer = await httpsGet(url, { ...withCertificate, headers: authorised })
  assert.equal(answer.status, 200)
  assert.ok(parseExposition(answer.body).samples.length > 10)
  // Probes need the certificate (TLS is below HTTP) but no token.
  assert.equal((await httpsGet(`${running.baseUrl}/healthz`, withCertificate)).status, 200)
  // The JSON API and its OpenAPI document sit behind the same certificate and token.
  for (const path of ['/api/v1/buckets', '/api/v1/drives', '/api/v1/status', '/api/openapi.json']) {
    const api = `${running.baseUrl}${path}`
    await assert.rejects(
      httpsGet(api, { ca: root.certPem, headers: authorised }),
      /alert certificate required/,
    )
    assert.equal((await httpsGet(api, withCertificate)).status, 401, path)
    const json = await httpsGet(api, { ...withCertificate, headers: authorised })
    assert.equal(json.status, 200, path)
    assert.equal(typeof JSON.parse(json.body), 'object')
  }
})

/** Starts with these TLS files and returns the one line the exporter refuses them with. */
async function refusal(env: Record<string, string>): Promise<string> {
  try {
    const running = await startExporter(env)
    await running.close()
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`)
    assert.equal(error.lines.length, 1, JSON.stringify(error.lines))
    return error.lines[0] ?? ''
  }
  assert.fail(`started with ${JSON.stringify(env)}`)
}

test('start-up refuses unreadable, malformed, encrypted and mismatched TLS files with one line', {
  skip,
}, async () => {
  const folder = join(dir, 'bad')
  await mkdir(folder, { recursive: true })
  const file = async (name: string, content: string) => {
    const path = join(folder, name)
    await writeFile(path, content)
    return path
  }
  const good = await installed('good', serverA)
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      'missing certificate file',
      { TLS_CERT_FILE: join(folder, 'absent.crt'), TLS_KEY_FILE: good.keyFile },
      /^TLS_CERT_FILE=".*absent\.crt": cannot read \(ENOENT: no such file or directory\)$/,
    ],
    [
      'a directory as the key',
      { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: folder },
      /^TLS_KEY_FILE=".*bad": cannot read \(EISDIR: illegal operation on a directory\)$/,
    ],
    [
      'no PEM block in the certificate file',
      { TLS_CERT_FILE: await file('empty.crt', 'nothing here\n'), TLS_KEY_FILE: good.keyFile },
      /^TLS_CERT_FILE=".*empty\.crt": no CERTIFICATE block found$/,
    ],
    [
      'a certificate block of garbage',
      {
        TLS_CERT_FILE: await file(
          'garbage.crt',
          '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        ),
        TLS_KEY_FILE: good.keyFile,
      },
      /^TLS_CERT_FILE=".*garbage\.crt": CERTIFICATE block 1 is not a valid certificate/,
    ],
    [
      'a certificate as the key',
      { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: good.certFile },
      /^TLS_KEY_FILE=".*tls\.crt": no PRIVATE KEY block found$/,
    ],
    [
      'two keys in the key file',
      { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: await file('two.key', serverA.keyPem + serverB.keyPem) },
      /^TLS_KEY_FILE=".*two\.key": holds 2 private keys; expected one$/,
    ],
    [
      'an encrypted key',
      {
        TLS_CERT_FILE: good.certFile,
        TLS_KEY_FILE: await file('encrypted.key', await pki.encryptedKey(serverA)),
      },
      /^TLS_KEY_FILE=".*encrypted\.key": the private key is encrypted; give an unencrypted key$/,
    ],
    [
      'the key of another certificate',
      { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: serverB.keyFile },
      /^TLS_KEY_FILE=".*server-b\.key": does not match the certificate in TLS_CERT_FILE/,
    ],
    [
      'a client CA file without a certificate',
      { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: good.keyFile, TLS_CLIENT_CA_FILE: serverA.keyFile },
      /^TLS_CLIENT_CA_FILE=".*server-a\.key": no CERTIFICATE block found$/,
    ],
  ]
  for (const [name, env, expected] of cases) assert.match(await refusal(env), expected, name)
  // Combined certificate and key in one file (haproxy style) is fine.
  const combined = await file('combined.pem', `${serverA.certPem}${serverA.keyPem}`)
  const running = await startExporter({ TLS_CERT_FILE: combined, TLS_KEY_FILE: combined })
  await running.close()
})
