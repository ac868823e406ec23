import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import bcrypt from 'bcryptjs'
import { ConfigError } from '../../src/config/load.js'
import { BasicAuthUsers, basicCredentials } from '../../src/security/basic-auth.js'
import { BcryptChecker } from '../../src/security/bcrypt-checker.js'
import { loadWebConfig } from '../../src/security/web-config.js'

const NO_VARIABLES = {
  METRICS_AUTH_TOKEN: '',
  METRICS_AUTH_TOKEN_FILE: '',
  TLS_CERT_FILE: '',
  TLS_KEY_FILE: '',
  TLS_CLIENT_CA_FILE: '',
}
// Cost 4, bcrypt's least: these tests are about the rules, not bcrypt's speed.
const HASH = bcrypt.hashSync('right-password', 4)
const OTHER_HASH = bcrypt.hashSync('other-password', 4)

let dir: string
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'objstore-web-config-'))
})
after(() => rm(dir, { recursive: true, force: true }))

let files = 0
async function written(text: string): Promise<string> {
  const path = join(dir, `web-${files++}.yml`)
  await writeFile(path, text)
  return path
}

/** The lines loading `text` is refused with, each checked to name the file. */
async function refusal(text: string, variables: Partial<typeof NO_VARIABLES> = {}): Promise<string[]> {
  const path = await written(text)
  try {
    await loadWebConfig(path, { ...NO_VARIABLES, ...variables })
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error))
    const prefix = `WEB_CONFIG_FILE="${path}": `
    for (const line of error.lines) assert.ok(line.startsWith(prefix), line)
    return error.lines.map((line) => line.slice(prefix.length))
  }
  assert.fail(`accepted: ${text}`)
}

test('web config: every part of the format read, relative paths from the file folder', async () => {
  const path = await written(
    [
      'tls_server_config:',
      '  cert_file: tls.crt',
      '  key_file: /abs/tls.key',
      '  client_auth_type: RequireAndVerifyClientCert',
      '  client_ca_file: ca.crt',
      '  min_version: TLS13',
      '  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]',
      '  curve_preferences: [X25519, CurveP256]',
      '  prefer_server_cipher_suites: false',
      'http_server_config:',
      '  http2: false',
      '  headers:',
      '    X-Frame-Options: sameorigin',
      '    Strict-Transport-Security: max-age=31536000',
      '    X-XSS-Protection: ""',
      'basic_auth_users:',
      `  alice: ${HASH}`,
      `  bob: "${OTHER_HASH.replace('$2b$', '$2y$')}"`,
    ].join('\n'),
  )
  const web = await loadWebConfig(path, NO_VARIABLES)
  assert.equal(web.tls?.certFile, join(dir, 'tls.crt'))
  assert.equal(web.tls?.keyFile, '/abs/tls.key')
  assert.equal(web.tls?.clientCaFile, join(dir, 'ca.crt'))
  assert.deepEqual(web.tls?.policy, {
    minVersion: 'TLSv1.3',
    maxVersion: 'TLSv1.3',
    ciphers:
      'ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256',
    ecdhCurve: 'X25519:P-256',
    honorCipherOrder: false,
  })
  assert.deepEqual(web.headers, {
    'X-Frame-Options': 'sameorigin',
    'Strict-Transport-Security': 'max-age=31536000',
  })
  assert.deepEqual([...web.users.keys()], ['alice', 'bob'])
})

test('web config: an empty file, or one with empty sections, asks for nothing', async () => {
  for (const text of ['', '# nothing\n', 'tls_server_config:\nhttp_server_config:\nbasic_auth_users:\n']) {
    const web = await loadWebConfig(await written(text), NO_VARIABLES)
    assert.deepEqual(web, { tls: undefined, users: new Map(), headers: {} }, JSON.stringify(text))
  }
})

test('web config: unknown keys refused, one line each naming the key', async () => {
  assert.deepEqual(
    await refusal('tls_server_config:\n  cert_fil: a\nhttp_server_config:\n  header: {}\nbasic_auth: {}\n'),
    [
      'basic_auth: unknown key; expected one of tls_server_config, http_server_config, basic_auth_users',
      'tls_server_config.cert_fil: unknown key; expected one of cert_file, key_file, client_ca_file, client_auth_type, min_version, max_version, cipher_suites, prefer_server_cipher_suites, curve_preferences',
      'http_server_config.header: unknown key; expected one of http2, headers',
    ],
  )
})

test('web config: parts of the format this exporter does not do are refused with the reason', async () => {
  const lines = await refusal(
    [
      'rate_limit: {interval: 1s, burst: 5}',
      'tls_server_config:',
      '  cert: "-----BEGIN CERTIFICATE-----"',
      '  cert_file: a.crt',
      '  key_file: a.key',
      '  client_auth_type: VerifyClientCertIfGiven',
      '  client_allowed_sans: [a]',
    ].join('\n'),
  )
  assert.equal(lines.length, 4, lines.join('\n'))
  assert.match(lines[0] ?? '', /^rate_limit: not supported by objstore-exporter; .*MAX_EVENT_LOOP_DELAY_MS/)
  assert.match(lines[1] ?? '', /^tls_server_config\.cert: inline PEM is not supported; .*cert_file/)
  assert.match(lines[2] ?? '', /^tls_server_config\.client_allowed_sans: not supported/)
  assert.match(
    lines[3] ?? '',
    /^tls_server_config\.client_auth_type: VerifyClientCertIfGiven lets clients in/,
  )
})

test('web config: values of the wrong kind, and the rules between TLS keys', async () => {
  assert.deepEqual(
    await refusal(
      [
        'tls_server_config:',
        '  cert_file: [a]',
        '  min_version: TLS1.2',
        '  cipher_suites: TLS_AES_128_GCM_SHA256',
        '  curve_preferences: [CurveP224]',
        '  prefer_server_cipher_suites: "yes"',
        '  client_ca_file: ca.crt',
      ].join('\n'),
    ),
    [
      'tls_server_config.cert_file: expected a string',
      'tls_server_config.min_version: "TLS1.2" is not one of TLS10, TLS11, TLS12, TLS13',
      'tls_server_config.cipher_suites: expected a list',
      'tls_server_config.curve_preferences[0]: "CurveP224" is not one of CurveP256, CurveP384, CurveP521, X25519',
      'tls_server_config.prefer_server_cipher_suites: expected true or false',
      'tls_server_config.cert_file: required when tls_server_config sets anything',
      'tls_server_config.key_file: required when tls_server_config sets anything',
      'tls_server_config.client_auth_type: must be RequireAndVerifyClientCert when client_ca_file is set',
    ],
  )
  assert.deepEqual(
    await refusal(
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n  client_auth_type: RequireAndVerifyClientCert\n',
    ),
    [
      'tls_server_config.min_version: TLS13 is above max_version TLS12',
      'tls_server_config.client_ca_file: required when client_auth_type is RequireAndVerifyClientCert',
    ],
  )
})

test('web config: headers limited to the format list and its values; hashes never quoted', async () => {
  const lines = await refusal(
    [
      'http_server_config:',
      '  headers:',
      '    X-Powered-By: me',
      '    X-Frame-Options: allow',
      '    x-content-type-options: nosniff',
      'basic_auth_users:',
      '  alice: not-a-hash-9f2c',
      '  bob: 12',
      `  "a:b": ${HASH}`,
    ].join('\n'),
  )
  assert.equal(lines.length, 6, lines.join('\n'))
  assert.match(
    lines[0] ?? '',
    /^http_server_config\.headers\.X-Powered-By: this header cannot be set; expected one of /,
  )
  assert.equal(lines[1], 'http_server_config.headers.X-Frame-Options: "allow" is not one of deny, sameorigin')
  assert.match(
    lines[2] ?? '',
    /^http_server_config\.headers\.x-content-type-options: this header cannot be set/,
  )
  assert.match(lines[3] ?? '', /^basic_auth_users\.alice: expected a bcrypt hash/)
  assert.match(lines[4] ?? '', /^basic_auth_users\.bob: expected a bcrypt hash/)
  assert.equal(lines[5], 'basic_auth_users.a:b: a user name cannot hold a colon (RFC 7617)')
  assert.ok(!lines.join('\n').includes('9f2c'), 'a hash (or what stands for one) is never echoed')
})

test('web config: TLS or authentication set both here and by the variables is refused', async () => {
  const both = `tls_server_config:\n  cert_file: a\n  key_file: b\nbasic_auth_users:\n  alice: ${HASH}\n`
  assert.deepEqual(
    await refusal(both, { TLS_CERT_FILE: '/tls/a', TLS_KEY_FILE: '/tls/b', METRICS_AUTH_TOKEN: 't' }),
    [
      'tls_server_config: set here while TLS_CERT_FILE, TLS_KEY_FILE set TLS too; configure TLS in one place',
      'basic_auth_users: basic auth is set here and a bearer token by METRICS_AUTH_TOKEN; use one authentication',
    ],
  )
  // Versions for the variables' TLS would be ignored: refused too.
  assert.deepEqual(await refusal('tls_server_config:\n  min_version: TLS13\n', { TLS_CERT_FILE: '/tls/a' }), [
    'tls_server_config: set here while TLS_CERT_FILE set TLS too; configure TLS in one place',
  ])
  // Different things from each place: headers from the file, TLS and the token from the variables.
  const headersOnly = await written('http_server_config:\n  headers:\n    X-XSS-Protection: "0"\n')
  const web = await loadWebConfig(headersOnly, {
    ...NO_VARIABLES,
    TLS_CERT_FILE: '/a',
    METRICS_AUTH_TOKEN_FILE: '/t',
  })
  assert.deepEqual(web.headers, { 'X-XSS-Protection': '0' })
})

test('web config: a file that is not YAML, duplicated keys, or missing: one line', async () => {
  assert.deepEqual(await refusal('basic_auth_users:\n  a: x\n  a: y\n'), [
    'not valid YAML at line 3 (Map keys must be unique)',
  ])
  assert.match(
    (await refusal('tls_server_config: [\n'))[0] ?? '',
    /^not valid YAML at line 2 \(Flow sequence/,
  )
  assert.deepEqual(await refusal('- a\n- b\n'), ['the file: expected a mapping of keys to values'])
  const missing = join(dir, 'missing.yml')
  await assert.rejects(loadWebConfig(missing, NO_VARIABLES), (error: ConfigError) => {
    assert.deepEqual(error.lines, [
      `WEB_CONFIG_FILE="${missing}": cannot read (ENOENT: no such file or directory)`,
    ])
    return true
  })
})

test('web config: the example config/web-config.yml is read as its comments say', async () => {
  const web = await loadWebConfig(join(import.meta.dirname, '../../config/web-config.yml'), NO_VARIABLES)
  assert.equal(web.tls?.certFile, join(import.meta.dirname, '../../config/tls.crt'))
  assert.equal(web.tls?.clientCaFile, '')
  assert.deepEqual(web.headers, { 'Strict-Transport-Security': 'max-age=31536000' })
  const hash = web.users.get('prometheus') ?? ''
  assert.ok(bcrypt.compareSync('change-me', hash), 'the comment names the password of the example hash')
})

test('basic credentials: scheme case-insensitive, split at the first colon', () => {
  const encode = (text: string) => Buffer.from(text).toString('base64')
  assert.deepEqual(basicCredentials(`Basic ${encode('alice:pa:ss')}`), { user: 'alice', password: 'pa:ss' })
  assert.deepEqual(basicCredentials(`bAsIc  ${encode('ü:')}`), { user: 'ü', password: '' })
  for (const header of [
    undefined,
    '',
    'Basic',
    `Bearer ${encode('a:b')}`,
    `Basic ${encode('no-colon')}`,
    'Basic !!',
  ])
    assert.equal(basicCredentials(header), undefined, JSON.stringify(header))
})

/** The real checker, counting the comparisons it is asked for. */
class CountingChecker extends BcryptChecker {
  comparisons = 0
  override compare(password: string, hash: string): Promise<boolean> {
    this.comparisons++
    return super.compare(password, hash)
  }
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

test('basic auth: right, wrong and unknown; verified credentials cached, bounded', async (t) => {
  const checker = new CountingChecker()
  t.after(() => checker.close())
  const users = new BasicAuthUsers(
    new Map([
      ['alice', HASH],
      ['bob', OTHER_HASH],
    ]),
    checker,
    { cacheSize: 1 },
  )
  assert.equal(await users.check(basic('alice', 'right-password')), 'allowed')
  assert.equal(await users.check(basic('alice', 'right-password')), 'allowed')
  assert.equal(checker.comparisons, 1, 'the second scrape paid no bcrypt')
  assert.equal(await users.check(basic('alice', 'wrong')), 'refused')
  assert.equal(await users.check(basic('alice', 'wrong')), 'refused')
  assert.equal(checker.comparisons, 3, 'a wrong password is never remembered')
  // An unknown user costs a comparison too (against a real hash), and is refused even with a
  // password that matches that hash.
  assert.equal(await users.check(basic('mallory', 'right-password')), 'refused')
  assert.equal(checker.comparisons, 4)
  assert.equal(await users.check(basic('bob', 'right-password')), 'refused', 'alice password is not bob')
  assert.equal(await users.check(basic('bob', 'other-password')), 'allowed')
  assert.equal(checker.comparisons, 6)
  // The cache holds one: bob's success pushed alice's out.
  assert.equal(await users.check(basic('alice', 'right-password')), 'allowed')
  assert.equal(checker.comparisons, 7)
  assert.equal(await users.check(undefined), 'refused')
  assert.equal(await users.check('Bearer x'), 'refused')
  assert.equal(checker.comparisons, 7, 'no header, no bcrypt')
})

test('basic auth: the same new credentials at once share one comparison; too many new ones are busy', async (t) => {
  const checker = new CountingChecker()
  t.after(() => checker.close())
  const users = new BasicAuthUsers(new Map([['alice', HASH]]), checker, { maxPending: 2 })
  const header = basic('alice', 'right-password')
  const verdicts = await Promise.all([users.check(header), users.check(header), users.check(header)])
  assert.deepEqual(verdicts, ['allowed', 'allowed', 'allowed'])
  assert.equal(checker.comparisons, 1)
  const flood = await Promise.all(
    ['a', 'b', 'c', 'd'].map((password) => users.check(basic('alice', password))),
  )
  assert.deepEqual(flood, ['refused', 'refused', 'busy', 'busy'])
  assert.equal(await users.check(header), 'allowed', 'remembered credentials pass during a flood')
})
