import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { opensslSkipReason, TestPki } from '../support/certificates.js'
import { startExporter } from '../support/exporter.js'
import { REPO_ROOT } from '../support/promtool.js'

/** The image's HEALTHCHECK command (src/healthcheck.ts) run as a process, as Docker runs it. */
function healthcheck(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'src/healthcheck.ts')],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, _stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? -1 : 0, stderr }),
    )
  })
}

test('healthy over HTTP, also when a metrics token is required (/healthz is exempt)', async (t) => {
  const running = await startExporter({ METRICS_AUTH_TOKEN: 'healthcheck-token-0123456789abcdef' })
  t.after(() => running.close())
  assert.deepEqual(await healthcheck({ HOST: '0.0.0.0', PORT: String(running.port) }), {
    code: 0,
    stderr: '',
  })
})

test('healthy over HTTPS when TLS_CERT_FILE is set', { skip: await opensslSkipReason() }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'objstore-healthcheck-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const pki = new TestPki(dir)
  const server = await pki.issue('server', await pki.authority('root'), 'server')
  const running = await startExporter({ TLS_CERT_FILE: server.certFile, TLS_KEY_FILE: server.keyFile })
  t.after(() => running.close())
  assert.match(running.baseUrl, /^https:/)
  const env = { PORT: String(running.port), TLS_CERT_FILE: server.certFile }
  assert.deepEqual(await healthcheck(env), { code: 0, stderr: '' })
  // Plain HTTP to a TLS port is not healthy: the check follows the configuration.
  assert.equal((await healthcheck({ PORT: String(running.port) })).code, 1)
})

test('healthy over HTTPS when WEB_CONFIG_FILE turns TLS on, over HTTP when it does not', {
  skip: await opensslSkipReason(),
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'objstore-healthcheck-web-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const pki = new TestPki(dir)
  const server = await pki.issue('server', await pki.authority('root'), 'server')
  const tlsConfig = join(dir, 'tls.yml')
  await writeFile(
    tlsConfig,
    `tls_server_config:\n  cert_file: ${server.certFile}\n  key_file: ${server.keyFile}\n`,
  )
  // Versions alone do not turn TLS on (exporter-toolkit's rule): plain HTTP.
  const versionsOnly = join(dir, 'versions.yml')
  await writeFile(versionsOnly, 'tls_server_config:\n  min_version: TLS13\n')
  const https = await startExporter({ WEB_CONFIG_FILE: tlsConfig })
  t.after(() => https.close())
  const http = await startExporter({ WEB_CONFIG_FILE: versionsOnly })
  t.after(() => http.close())
  assert.match(https.baseUrl, /^https:/)
  assert.match(http.baseUrl, /^http:/)
  assert.deepEqual(await healthcheck({ PORT: String(https.port), WEB_CONFIG_FILE: tlsConfig }), {
    code: 0,
    stderr: '',
  })
  assert.deepEqual(await healthcheck({ PORT: String(http.port), WEB_CONFIG_FILE: versionsOnly }), {
    code: 0,
    stderr: '',
  })
  const missing = await healthcheck({ PORT: String(http.port), WEB_CONFIG_FILE: join(dir, 'gone.yml') })
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^healthcheck: WEB_CONFIG_FILE: ENOENT/)
})

test('unhealthy when nothing answers on the port', async () => {
  const probe = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => probe.once('listening', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  const result = await healthcheck({ PORT: String(port) })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /^healthcheck: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/)
})
