import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Issued, opensslSkipReason, TestPki } from '../support/certificates.js'
import { sampleValue } from '../support/exposition.js'
import { freePort, startExporterProcess } from '../support/process.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import { startServingProcess } from '../support/serving-process.js'

/**
 * S3_CA_FILE: a store behind a private CA (an openssl-made CA, a TLS server in front of s3rver).
 * Without the file the scan fails with a hint naming it; with it the store is read; a bad file
 * stops start-up naming the variable.
 */

const skip = process.env.CI ? undefined : await opensslSkipReason()
let s3: S3rverProcess
let authority: Issued
let folder: string
let tls: Server
let endpoint: string

before(async () => {
  if (skip) return
  s3 = await startS3rver()
  await fillBucket(s3.client, 'private-ca-bucket', [{ key: 'a', size: 42 }])
  folder = await mkdtemp(join(tmpdir(), 'objstore-s3-ca-'))
  const pki = new TestPki(folder)
  authority = await pki.authority('private-ca')
  const server = await pki.issue('private-store', authority, 'server')
  // TLS in front of s3rver, forwarding each request as it is (the signature covers the Host).
  tls = createServer({ cert: server.certPem, key: server.keyPem }, (incoming, outgoing) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: s3.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    upstream.on('error', () => outgoing.destroy())
    incoming.pipe(upstream)
  })
  tls.listen(0, '127.0.0.1')
  await once(tls, 'listening')
  endpoint = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`
})
after(async () => {
  tls?.closeAllConnections()
  tls?.close()
  await s3?.stop()
  if (folder) await rm(folder, { recursive: true, force: true })
})

function env(extra: Record<string, string>): Record<string, string> {
  return { ...s3.exporterEnv, S3_ENDPOINT: endpoint, LOG_MODE: 'json', ...extra }
}

test('without S3_CA_FILE the private CA is not trusted, and the error says which variable fixes it', {
  skip,
}, async (t) => {
  const serving = await startServingProcess(t, env({}), await scratchFolder(t))
  const [line] = await serving.waitForLogs('source down', (entry) => entry.msg === 'usage source unreachable')
  assert.match(String(line?.error), /ListBuckets: .*certificate.*\(hint: .*set S3_CA_FILE/)
  assert.equal(await serving.stop(), 0)
})

test('with S3_CA_FILE the store is read over TLS', { skip }, async (t) => {
  const serving = await startServingProcess(
    t,
    env({ S3_CA_FILE: authority.certFile }),
    await scratchFolder(t),
  )
  const [scan] = await serving.waitForLogs('a scan', (entry) => entry.msg === 'usage scan finished')
  assert.equal(scan?.sourceUp, true, JSON.stringify(scan))
  const scrape = await serving.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'private-ca-bucket' }), 42)
  assert.equal(await serving.stop(), 0)
})

async function refusal(t: TestContext, caFile: string): Promise<string> {
  const child = startExporterProcess(
    { HOST: '127.0.0.1', PORT: String(await freePort()), ...env({ S3_CA_FILE: caFile }) },
    await scratchFolder(t),
  )
  t.after(() => child.kill('SIGKILL'))
  const code = await Promise.race([child.exited, sleep(30_000, 'still running', { ref: false })])
  assert.equal(code, 2, child.stderr())
  const lines = child.stderr().trim().split('\n')
  assert.equal(lines.length, 1, child.stderr())
  return lines[0] as string
}

test('a missing or certificate-less S3_CA_FILE stops start-up naming it', { skip }, async (t) => {
  const missing = join(folder, 'absent.pem')
  assert.equal(
    await refusal(t, missing),
    `objstore-exporter: invalid configuration: S3_CA_FILE=${JSON.stringify(missing)}: cannot be read (ENOENT); expected a PEM file of CA certificates`,
  )
  const garbage = join(folder, 'garbage.pem')
  await writeFile(garbage, 'not a certificate\n')
  assert.match(
    await refusal(t, garbage),
    /S3_CA_FILE=".*garbage\.pem": holds no -----BEGIN CERTIFICATE----- block/,
  )
})
