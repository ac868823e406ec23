import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { connect } from 'node:tls'
import bcrypt from 'bcryptjs'
import { type Issued, opensslSkipReason, TestPki } from '../support/certificates.js'
import { parseExposition } from '../support/exposition.js'
import { httpsGet } from '../support/https.js'
import { freePort, runCommand, startExporterProcess } from '../support/process.js'
import { promtool, promtoolSkipReason } from '../support/promtool.js'

const skip = await opensslSkipReason()
const PASSWORD = 'pw-4c1e9b07-web-config'
const PREFIX = 'objstore-exporter: invalid configuration: '

let cwd: string
let pki: TestPki
let root: Issued
let serverA: Issued
let serverB: Issued
let client: Issued
let hash: string
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'objstore-web-config-'))
  // Cost 10, what `htpasswd -nBC 10` and exporter-toolkit's documentation use; $2y$ as htpasswd writes.
  hash = (await bcrypt.hash(PASSWORD, 10)).replace(/^\$2b\$/, '$2y$')
  if (skip) return
  pki = new TestPki(cwd)
  root = await pki.authority('web-root-ca')
  serverA = await pki.issue('web-server-a', root, 'server')
  serverB = await pki.issue('web-server-b', root, 'server')
  client = await pki.issue('web-client', root, 'client')
})
after(() => rm(cwd, { recursive: true, force: true }))

let folders = 0
/** A folder holding `web.yml` and the server certificate as tls.crt and tls.key (relative paths). */
async function webConfigFolder(lines: readonly string[]): Promise<{ folder: string; file: string }> {
  const folder = join(cwd, `web-${folders++}`)
  await mkdir(folder)
  if (!skip) {
    await writeFile(join(folder, 'tls.crt'), serverA.certPem)
    await writeFile(join(folder, 'tls.key'), serverA.keyPem)
    await writeFile(join(folder, 'ca.crt'), root.certPem)
  }
  const file = join(folder, 'web.yml')
  await writeFile(file, `${lines.join('\n')}\n`)
  return { folder, file }
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** The exporter serving with `--web.config.file`, on a free port; killed when the test ends. */
async function serving(
  t: { after: (fn: () => void) => void },
  file: string,
  env: Record<string, string> = {},
) {
  const port = await freePort()
  const child = startExporterProcess(
    { HOST: '127.0.0.1', PORT: String(port), DATA_DIR: join(cwd, 'data'), ...env },
    cwd,
    {
      args: ['--web.config.file', file],
    },
  )
  t.after(() => child.kill('SIGKILL'))
  await child.waitForOutput('objstore-exporter listening')
  return { child, url: `https://127.0.0.1:${port}`, port }
}

test('web config: HTTPS, basic auth and headers on the real process', { skip }, async (t) => {
  const { file } = await webConfigFolder([
    'tls_server_config:',
    '  cert_file: tls.crt',
    '  key_file: tls.key',
    'http_server_config:',
    '  headers:',
    '    Strict-Transport-Security: max-age=31536000',
    '    X-Frame-Options: sameorigin',
    'basic_auth_users:',
    `  prometheus: ${hash}`,
  ])
  const { child, url } = await serving(t, file)
  assert.match(child.stdout(), /"address":"https:\/\/127\.0\.0\.1:\d+\/metrics"/)
  assert.match(child.stdout(), /"authentication":"basic"/)
  const get = (path: string, authorization?: string) =>
    httpsGet(`${url}${path}`, { ca: root.certPem, headers: authorization ? { authorization } : {} })

  const anonymous = await get('/metrics')
  assert.equal(anonymous.status, 401)
  assert.equal(anonymous.headers['www-authenticate'], 'Basic realm="objstore-exporter", charset="UTF-8"')
  assert.equal((await get('/metrics', basic('prometheus', 'wrong'))).status, 401)
  assert.equal((await get('/metrics', basic('someone', PASSWORD))).status, 401)
  assert.equal((await get('/', `Bearer ${PASSWORD}`)).status, 401)
  for (let scrape = 0; scrape < 3; scrape++) {
    const answer = await get('/metrics', basic('prometheus', PASSWORD))
    assert.equal(answer.status, 200)
    assert.equal(answer.fingerprint256, serverA.fingerprint256)
    assert.ok(parseExposition(answer.body).samples.length > 10)
    assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000')
    assert.equal(answer.headers['x-frame-options'], 'sameorigin', 'the file replaces the exporter own DENY')
    assert.equal(answer.headers['x-content-type-options'], 'nosniff', 'the exporter own headers stay')
  }
  // Probes stay open, as with a bearer token: kubelet sends no credentials.
  assert.equal((await get('/healthz')).status, 200)
  const openapi = JSON.parse((await get('/api/openapi.json', basic('prometheus', PASSWORD))).body)
  assert.deepEqual(openapi.components.securitySchemes, { basic: { type: 'http', scheme: 'basic' } })
  child.kill('SIGTERM')
  assert.equal(await child.exited, 0)
  const output = `${child.stdout()}${child.stderr()}`
  assert.ok(
    !output.includes(PASSWORD) && !output.includes(hash.slice(7)),
    'no password or hash in the output',
  )
  assert.match(child.stdout(), /"msg":"web configuration file loaded"/)
})

test('web config: mutual TLS, a TLS 1.2 cipher list, and rotation of the files it names', {
  skip,
}, async (t) => {
  const { folder, file } = await webConfigFolder([
    'tls_server_config:',
    '  cert_file: tls.crt',
    '  key_file: tls.key',
    '  client_auth_type: RequireAndVerifyClientCert',
    '  client_ca_file: ca.crt',
    '  max_version: TLS12',
    '  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]',
  ])
  const { child, url, port } = await serving(t, file, { SECURITY_FILES_RELOAD_SECONDS: '1' })
  const withClient = { ca: root.certPem, cert: client.certPem, key: client.keyPem }
  assert.equal((await httpsGet(`${url}/metrics`, withClient)).status, 200)
  await assert.rejects(httpsGet(`${url}/metrics`, { ca: root.certPem }), 'no client certificate, no answer')
  const negotiated = await new Promise<{ protocol: string | null; cipher: string }>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...withClient, servername: '' }, () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name })
      socket.end()
    })
    socket.on('error', reject)
  })
  assert.deepEqual(negotiated, { protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384' })
  // The certificate the file names is renewed in place: new clients get it without a restart.
  await writeFile(join(folder, 'tls.key.new'), serverB.keyPem)
  await writeFile(join(folder, 'tls.crt.new'), serverB.certPem)
  await rename(join(folder, 'tls.key.new'), join(folder, 'tls.key'))
  await rename(join(folder, 'tls.crt.new'), join(folder, 'tls.crt'))
  await child.waitForOutput('TLS certificate reloaded')
  assert.equal((await httpsGet(`${url}/metrics`, withClient)).fingerprint256, serverB.fingerprint256)
})

/** Runs with `args` and `env`; it must exit 2 with exactly `expected` as its one stderr line. */
async function refused(
  args: readonly string[],
  env: Record<string, string>,
  expected: string,
): Promise<void> {
  const run = await runCommand(args, { DATA_DIR: join(cwd, 'data'), ...env }, cwd)
  assert.equal(run.code, 2, run.stderr)
  assert.equal(run.stderr, `${PREFIX}${expected}\n`)
}

test('web config: TLS or authentication set twice, an unknown key, a mismatched key: one line, exit 2', {
  skip,
}, async () => {
  const { folder, file } = await webConfigFolder([
    'tls_server_config:',
    '  cert_file: tls.crt',
    '  key_file: tls.key',
  ])
  await refused(
    ['--web.config.file', file],
    { TLS_CERT_FILE: join(folder, 'tls.crt'), TLS_KEY_FILE: join(folder, 'tls.key') },
    `WEB_CONFIG_FILE="${file}": tls_server_config: set here while TLS_CERT_FILE, TLS_KEY_FILE set TLS too; configure TLS in one place`,
  )
  const auth = await webConfigFolder([`basic_auth_users:`, `  prometheus: ${hash}`])
  await refused(
    [],
    { WEB_CONFIG_FILE: auth.file, METRICS_AUTH_TOKEN: PASSWORD },
    `WEB_CONFIG_FILE="${auth.file}": basic_auth_users: basic auth is set here and a bearer token by METRICS_AUTH_TOKEN; use one authentication`,
  )
  const typo = await webConfigFolder([
    'tls_server_config:',
    '  cert_file: tls.crt',
    '  key_file: tls.key',
    '  min_verison: TLS13',
  ])
  await refused(
    ['check-config', '--web.config.file', typo.file],
    {},
    `WEB_CONFIG_FILE="${typo.file}": tls_server_config.min_verison: unknown key; expected one of cert_file, key_file, client_ca_file, client_auth_type, min_version, max_version, cipher_suites, prefer_server_cipher_suites, curve_preferences`,
  )
  const mismatched = await webConfigFolder([
    'tls_server_config:',
    '  cert_file: tls.crt',
    '  key_file: other.key',
  ])
  await writeFile(join(mismatched.folder, 'other.key'), serverB.keyPem)
  await refused(
    ['--web.config.file', mismatched.file],
    {},
    `WEB_CONFIG_FILE="${mismatched.file}": tls_server_config.key_file="${join(mismatched.folder, 'other.key')}": does not match the certificate in tls_server_config.cert_file (a key of another certificate?)`,
  )
})

test('web config: config/web-config.yml is a file promtool and the exporter both accept', {
  skip: skip ?? promtoolSkipReason(),
}, async (t) => {
  const example = await readFile(join(import.meta.dirname, '../../config/web-config.yml'), 'utf8')
  const { file } = await webConfigFolder([example])
  const checked = await promtool(['check', 'web-config', file])
  assert.equal(checked.code, 0, checked.output)
  const { url } = await serving(t, file)
  const answer = await httpsGet(`${url}/metrics`, {
    ca: root.certPem,
    headers: { authorization: basic('prometheus', 'change-me') },
  })
  assert.equal(answer.status, 200)
})
