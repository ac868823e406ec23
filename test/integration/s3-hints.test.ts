import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { after, before, type TestContext, test } from 'node:test'
import { opensslSkipReason, TestPki } from '../support/certificates.js'
import { startS3Gate } from '../support/s3-gate.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import { startServingProcess } from '../support/serving-process.js'

/**
 * Each S3 error an operator meets while setting up gets a one-line hint naming what to fix, in
 * the log line and on the landing page: the real exporter against s3rver, s3rver behind a gate
 * that answers what s3rver cannot (a skewed clock), and a local TLS server.
 */

const skip = process.env.CI ? undefined : await opensslSkipReason()
let s3: S3rverProcess

before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, 'hinted-bucket', [{ key: 'a', size: 10 }])
})
after(() => s3?.stop())

/**
 * Runs the exporter with `env` over s3rver's, waits for the log line `msg` (the source down, or a
 * bucket failing) and returns its error text, checked against the landing page.
 */
async function failure(
  t: TestContext,
  env: Record<string, string>,
  msg: 'usage source unreachable' | 'bucket scan failed',
): Promise<string> {
  const cwd = await scratchFolder(t, 'objstore-s3-hints-')
  const serving = await startServingProcess(t, { ...s3.exporterEnv, LOG_MODE: 'json', ...env }, cwd)
  const [line] = await serving.waitForLogs(msg, (entry) => entry.msg === msg)
  const error = String(line?.error)
  assert.ok(!error.includes('\n'), `one line: ${error}`)
  if (msg === 'usage source unreachable') {
    await serving.waitForLogs('the scan', (entry) => entry.msg === 'usage scan finished')
    const page = await (await fetch(`${serving.baseUrl}/`)).text()
    assert.ok(page.includes('(hint: '), 'the page shows the hint with the reason')
  }
  assert.equal(await serving.stop(), 0)
  return error
}

test('SignatureDoesNotMatch: wrong secret, region or a rewriting proxy', async (t) => {
  // s3rver checks the key id but not the signature: the gate answers as a store that does.
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  gate.policy = () => ({ status: 403, code: 'SignatureDoesNotMatch' })
  const error = await failure(t, { S3_ENDPOINT: gate.endpoint }, 'usage source unreachable')
  assert.match(error, /SignatureDoesNotMatch .*\(hint: .*S3_SECRET_ACCESS_KEY, an S3_REGION .*proxy/)
})

test('InvalidAccessKeyId: the store does not know the key', async (t) => {
  const error = await failure(t, { S3_ACCESS_KEY_ID: 'NOT-A-KEY' }, 'usage source unreachable')
  assert.match(error, /InvalidAccessKeyId .*\(hint: the store does not know S3_ACCESS_KEY_ID/)
})

test('ENOTFOUND bucket.host: virtual-hosted addressing needs S3_FORCE_PATH_STYLE', async (t) => {
  const error = await failure(
    t,
    { S3_ENDPOINT: `http://localhost:${s3.port}`, S3_FORCE_PATH_STYLE: 'false' },
    'bucket scan failed',
  )
  assert.match(error, /ENOTFOUND hinted-bucket\.localhost.*\(hint: .*S3_FORCE_PATH_STYLE=true\)/)
})

test('https:// on a plain HTTP port', async (t) => {
  const error = await failure(t, { S3_ENDPOINT: `https://127.0.0.1:${s3.port}` }, 'usage source unreachable')
  assert.match(error, /EPROTO.*\(hint: S3_ENDPOINT says https:\/\/ but the port answers plain HTTP/)
})

test('http:// on a TLS port', { skip }, async (t) => {
  const pki = new TestPki(await scratchFolder(t, 'objstore-s3-hints-pki-'))
  const authority = await pki.authority('hints-ca')
  const server = await pki.issue('hints-server', authority, 'server')
  const tls = createServer({ cert: server.certPem, key: server.keyPem }, (_request, response) =>
    response.end(),
  )
  tls.listen(0, '127.0.0.1')
  await once(tls, 'listening')
  t.after(() => tls.close())
  const { port } = tls.address() as AddressInfo
  const error = await failure(t, { S3_ENDPOINT: `http://127.0.0.1:${port}` }, 'usage source unreachable')
  assert.match(error, /socket hang up.*\(hint: .*if the port speaks TLS, S3_ENDPOINT needs https:\/\//)
})

test('RequestTimeTooSkewed: the clocks differ', async (t) => {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  gate.policy = () => ({ status: 403, code: 'RequestTimeTooSkewed' })
  const error = await failure(t, { S3_ENDPOINT: gate.endpoint }, 'usage source unreachable')
  assert.match(error, /RequestTimeTooSkewed .*\(hint: this host's clock differs from the store's/)
})
