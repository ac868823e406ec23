import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type Issued, opensslSkipReason, TestPki } from '../support/certificates.js'
import { parseExposition } from '../support/exposition.js'
import { httpsGet } from '../support/https.js'
import { freePort, runUntilExit, startExporterProcess } from '../support/process.js'
import { unexpectedStderr } from '../support/serving-process.js'

const skipTls = await opensslSkipReason()
const MARKER = 'marker-5e1f0c77'

let cwd: string
let pki: TestPki
let root: Issued
let serverA: Issued
let serverB: Issued
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'objstore-security-process-'))
  if (skipTls) return
  pki = new TestPki(cwd)
  root = await pki.authority('process-root-ca')
  serverA = await pki.issue('process-server-a', root, 'server')
  serverB = await pki.issue('process-server-b', root, 'server')
})
after(() => rm(cwd, { recursive: true, force: true }))

/** Runs the real process with `env`; it must exit 2 with exactly `expected` on stderr. */
async function refusedAtStart(env: Record<string, string>, expected: RegExp[]): Promise<string> {
  const run = await runUntilExit(env, cwd)
  assert.equal(run.code, 2, run.stderr)
  assert.equal(unexpectedStderr(run.stderr).split('\n').length, expected.length, run.stderr)
  const lines = run.problems.map((problem) => `${prefix}${problem}`)
  assert.equal(lines.length, expected.length, run.stderr)
  for (const pattern of expected) {
    assert.ok(
      lines.some((line) => pattern.test(line)),
      `${pattern} in ${run.stderr}`,
    )
  }
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!`${run.stdout}${run.stderr}`.includes(MARKER), 'no secret value echoed')
  return run.stderr
}

const prefix = 'objstore-exporter: invalid configuration: '

test('process: bad values of several variables, a secret one among them', async () => {
  await refusedAtStart(
    {
      PORT: '-1',
      SCRAPE_TIMEOUT_SECONDS: '1e400',
      HOST: 'not a host',
      METRICS_AUTH_TOKEN: `${MARKER} with spaces`,
    },
    [
      new RegExp(`^${prefix}PORT="-1": expected an integer >= 1 and <= 65535$`),
      new RegExp(`^${prefix}SCRAPE_TIMEOUT_SECONDS="1e400": expected a number > 0 and <= 300$`),
      new RegExp(`^${prefix}HOST="not a host": expected a host name or IP address`),
      new RegExp(
        `^${prefix}METRICS_AUTH_TOKEN=\\(value hidden\\): expected printable ASCII characters without spaces$`,
      ),
    ],
  )
})

test('process: a mode requirement and a clash', async () => {
  await refusedAtStart({ TLS_CERT_FILE: '/tls/tls.crt' }, [
    new RegExp(`^${prefix}TLS_KEY_FILE: required when TLS_CERT_FILE is set$`),
  ])
  await refusedAtStart({ METRICS_AUTH_TOKEN: MARKER, METRICS_AUTH_TOKEN_FILE: '/run/secrets/token' }, [
    new RegExp(
      `^${prefix}METRICS_AUTH_TOKEN_FILE: set either METRICS_AUTH_TOKEN or METRICS_AUTH_TOKEN_FILE, not both$`,
    ),
  ])
})

test('process: a missing token file', async () => {
  await refusedAtStart({ METRICS_AUTH_TOKEN_FILE: join(cwd, 'no-token') }, [
    new RegExp(
      `^${prefix}METRICS_AUTH_TOKEN_FILE=".*no-token": cannot read \\(ENOENT: no such file or directory\\)$`,
    ),
  ])
})

test('process: a mismatched TLS pair and an unreadable key refuse start-up with one line', {
  skip: skipTls,
}, async () => {
  await refusedAtStart({ TLS_CERT_FILE: serverA.certFile, TLS_KEY_FILE: serverB.keyFile }, [
    new RegExp(
      `^${prefix}TLS_KEY_FILE=".*process-server-b\\.key": does not match the certificate in TLS_CERT_FILE`,
    ),
  ])
  await refusedAtStart({ TLS_CERT_FILE: serverA.certFile, TLS_KEY_FILE: join(cwd, 'gone.key') }, [
    new RegExp(`^${prefix}TLS_KEY_FILE=".*gone\\.key": cannot read \\(ENOENT: no such file or directory\\)$`),
  ])
})

test('process: HTTPS with a token file serves Prometheus and stops cleanly on SIGTERM', {
  skip: skipTls,
}, async (t) => {
  const port = await freePort()
  const tokenFile = join(cwd, 'token')
  await writeFile(tokenFile, `${MARKER}\n`)
  const child = startExporterProcess(
    {
      HOST: '127.0.0.1',
      PORT: String(port),
      TLS_CERT_FILE: serverA.certFile,
      TLS_KEY_FILE: serverA.keyFile,
      METRICS_AUTH_TOKEN_FILE: tokenFile,
      LOG_LEVEL: 'debug',
    },
    cwd,
  )
  t.after(() => child.kill('SIGKILL'))
  await child.waitForOutput('objstore-exporter listening')
  assert.match(child.stdout(), new RegExp(`"address":"https://127\\.0\\.0\\.1:${port}/metrics"`))
  assert.match(child.stdout(), /"authentication":"bearer"/)
  const url = `https://127.0.0.1:${port}/metrics`
  assert.equal((await httpsGet(url, { ca: root.certPem })).status, 401)
  const answer = await httpsGet(url, { ca: root.certPem, headers: { authorization: `Bearer ${MARKER}` } })
  assert.equal(answer.status, 200)
  assert.ok(parseExposition(answer.body).samples.length > 10)
  child.kill('SIGTERM')
  assert.equal(await child.exited, 0)
  assert.ok(!`${child.stdout()}${child.stderr()}`.includes(MARKER), 'the token never reaches the output')
})
