import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, type TestContext, test } from 'node:test'
import { loadState } from '../../src/snapshot/state-file.js'
import { LogReceiver } from '../support/log-receiver.js'
import { runCommand, runUntilExit } from '../support/process.js'
import { startS3Gate } from '../support/s3-gate.js'
import { escapeXml, expiredTokenXml, type S3Request, signatureMismatchXml } from '../support/s3-requests.js'
import { type StoredBucket, startXmlStore, type XmlStore } from '../support/s3-xml-store.js'
import { scratchFolder } from '../support/scratch.js'
import { echoOfForms, findLeaks } from '../support/secret-encodings.js'
import { assertCleanExit, type ServingProcess, startServingProcess } from '../support/serving-process.js'

/**
 * Every secret the exporter holds is set to a unique marker; the real process is driven through
 * every path that logs or answers (start-up at trace and debug level, scans failing with auth
 * errors whose S3 documents echo credentials back, log deliveries refused, 401s, probes, the
 * landing page, errors, bad configuration) and everything it let out is searched for the markers:
 * stdout, stderr, every HTTP status line, header and body, every byte the log receiver got (but
 * the Authorization header it is meant to get), and the state file. The store's error documents
 * also quote the credential it was sent in every common encoding (URL, base64 and base64url at each
 * alignment, hex, JSON escapes: test/support/secret-encodings.ts), and every output is searched for
 * each marker in each of those forms.
 */

const MARKERS = {
  s3AccessKeyId: 'AKIAMARKER7B0ACCESS',
  s3SecretKey: 'secret-marker-7b-s3-Wq9xZ',
  awsAccessKeyId: 'ASIAMARKER7B0SESSION',
  awsSecretKey: 'secret-marker-7b-aws-Lm3kP',
  // Real session tokens are base64: `/`, `+` and `=` encode differently in URLs and JSON; a space
  // and a quote too, so that every escape (`+` and `%20`, `\"`) has something to change.
  awsSessionToken: 'session-marker/7b+Fwo GZ"XIvYXdz==',
  metricsToken: 'metrics-marker-7b-c4f1e9',
  metricsTokenFile: 'metrics-file-marker-7b-a88d2b',
  logToken: 'log-marker-7b-90be11',
  logUrlPassword: 'log-url-marker-7b-5d7e',
  s3UrlPassword: 's3-url-marker-7b-1f0c',
  // EVENTS_AUTH_TOKEN allows only URL-unreserved characters: it travels as a query parameter.
  eventsToken: 'events-marker-7b-6d2a.f~0',
} as const

/** `marker:form` for each marker found in `text` in some encoded form (or as written). */
function findMarkers(text: string): string[] {
  return findLeaks(text, MARKERS)
}

/** The credential a request was signed with that a store can echo: the session token, or the key id. */
function echoedCredential(request: S3Request): string {
  const token = request.headers['x-amz-security-token']
  return typeof token === 'string'
    ? token
    : (/Credential=([^/]+)\//.exec(String(request.headers.authorization))?.[1] ?? '')
}

/** `xml` (an S3 error document) with its message quoting the request's credential in every encoding. */
function echoingEncodings(xml: string, request: S3Request): string {
  return xml.replace('</Message>', ` ${escapeXml(echoOfForms(echoedCredential(request)))}</Message>`)
}

const bucket = (name: string, size: number): StoredBucket => ({
  name,
  versions: [
    { key: 'k', versionId: 'null', isLatest: true, lastModified: new Date(1_790_000_000_000), size },
  ],
  uploads: [],
})

/**
 * The store: the documented-XML S3 endpoint, which (unlike s3rver, which knows one access key)
 * takes any credentials, so the markers themselves sign the requests.
 */
let store: XmlStore
before(async () => {
  store = await startXmlStore([bucket('ledger', 10), bucket('photos', 20)], 1000)
})
after(() => store?.close())

/** What one HTTP exchange let out, as text: status, every header, the body (decompressed). */
async function exchange(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, init)
  const body = await response.text()
  const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')
  return { status: response.status, text: `${response.status}\n${headers}\n\n${body}` }
}

/** Every request the paths can take, with and without the right token; their statuses in order. */
async function httpSweep(exporter: ServingProcess, token: string, out: string[]): Promise<number[]> {
  const base = exporter.baseUrl
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` })
  const basic = { authorization: `Basic ${Buffer.from(`prometheus:${token}x`).toString('base64')}` }
  const requests: Array<[string, RequestInit]> = [
    ['/', {}],
    ['/', { headers: bearer(token) }],
    ['/healthz', {}],
    ['/readyz', {}],
    ['/metrics', {}],
    ['/metrics', { headers: bearer('wrong-token') }],
    ['/metrics', { headers: bearer(`${token}x`) }],
    ['/metrics', { headers: basic }],
    ['/metrics', { headers: bearer(token) }],
    ['/metrics', { headers: { ...bearer(token), accept: 'application/openmetrics-text; version=1.0.0' } }],
    ['/metrics', { headers: { ...bearer(token), 'accept-encoding': 'gzip' } }],
    ['/no-such-page', { headers: bearer(token) }],
    ['/metrics', { method: 'POST', headers: bearer(token) }],
    ['/../../etc/passwd', { headers: bearer(token) }],
    ['/api/v1/status', {}],
    ['/api/v1/status', { headers: bearer(token) }],
    ['/api/v1/buckets', { headers: bearer(token) }],
    ['/api/v1/buckets?match=[', { headers: bearer(token) }],
    ['/api/v1/drives', { headers: bearer(token) }],
    ['/api/openapi.json', { headers: bearer(token) }],
    // POST /events: its own token, in the header or the query (as RGW and SNS send it).
    ...eventRequests(),
  ]
  const statuses: number[] = []
  for (const [path, init] of requests) {
    const { status, text } = await exchange(`${base}${path}`, init)
    statuses.push(status)
    out.push(text)
  }
  return statuses
}

/** Deliveries to POST /events: right and wrong tokens both ways, a broken body, an SNS message refused. */
function eventRequests(): Array<[string, RequestInit]> {
  const events = MARKERS.eventsToken
  const record = JSON.stringify({
    Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'ledger' }, object: { key: 'k' } } }],
  })
  const sns = JSON.stringify({
    Type: 'Notification',
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:unknown',
    MessageId: 'm',
    Message: record,
    Timestamp: '2026-12-05T00:00:00Z',
    SignatureVersion: '2',
    Signature: 'AAAA',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/x.pem',
  })
  const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    body,
    headers,
  })
  return [
    [`/events?token=${events}`, post(record)],
    [`/events?token=${encodeURIComponent(events)}`, post(record, { 'content-type': 'text/plain' })],
    ['/events', post(record, { authorization: `Bearer ${events}` })],
    [`/events?token=${events}x`, post(record)],
    ['/events', post(record, { authorization: `Bearer ${events}x` })],
    [`/events?token=${events}`, post('{"Records": [')],
    [`/events?token=${events}`, post(sns)],
  ]
}

const EXPECTED_STATUSES = [
  401, 200, 200, 200, 401, 401, 401, 401, 200, 200, 200, 404, 405, 404, 401, 200, 200, 400, 200, 200, 200,
  200, 200, 401, 401, 400, 403,
]

interface SweepRun {
  readonly level: 'trace' | 'debug'
  /** The S3 credentials and how they reach the SDK. */
  readonly s3Env: Record<string, string>
  /** Proves the S3 credential was in use: the gate saw it in a request. */
  readonly credentialSeen: (headers: Record<string, unknown>) => boolean
  /** The metrics token, as the variable or a token file. */
  readonly tokenEnv: (cwd: string) => Promise<Record<string, string>>
  readonly token: string
  /** The log receiver's credential: a bearer token, or user info in the URL (Basic). */
  readonly logEnv: (receiverUrl: string) => Record<string, string>
  readonly logAuthorization: string
}

async function sweep(t: TestContext, run: SweepRun): Promise<void> {
  const cwd = await scratchFolder(t, 'objstore-secrets-')
  const gate = await startS3Gate(Number(new URL(store.endpoint).port))
  t.after(() => gate.close())
  // Refuses the first batches (401, then a 500 retried, then a 400) and accepts the rest.
  const refusals = [{ status: 401 }, { status: 500 }, { status: 400 }]
  const receiver = await LogReceiver.start({ answer: (index) => refusals[index] ?? { status: 200 } })
  t.after(() => receiver.close())
  const stateFile = join(cwd, 'usage-state.json')
  const exporter = await startServingProcess(
    t,
    {
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: gate.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      ...run.s3Env,
      ...(await run.tokenEnv(cwd)),
      EVENTS_AUTH_TOKEN: MARKERS.eventsToken,
      LOG_TARGETS: 'console+http',
      ...run.logEnv(receiver.url),
      LOG_HTTP_FLUSH_INTERVAL_MS: '50',
      LOG_HTTP_BATCH_SIZE: '20',
      LOG_LEVEL: run.level,
      DATA_DIR: cwd,
      STATE_FILE: stateFile,
      SCAN_INTERVAL_SECONDS: '1',
      SCAN_TIMEOUT_SECONDS: '5',
    },
    cwd,
  )
  const out: string[] = []
  const scanned = (what: string, matches: (line: Record<string, unknown>) => boolean) =>
    exporter.waitForLogs(what, (line) => line.msg === 'usage scan finished' && matches(line))
  await scanned('a good scan', (line) => line.sourceUp === true && line.failed === 0)
  assert.deepEqual(await httpSweep(exporter, run.token, out), EXPECTED_STATUSES)

  // Listings refused as S3 refuses them, with documents echoing the credentials back.
  gate.policy = (request) =>
    request.operation === 'ListObjectsV2'
      ? { rewrite: () => ({ status: 403, body: echoingEncodings(signatureMismatchXml(request), request) }) }
      : 'forward'
  await scanned('a scan with both listings refused', (line) => line.failed === 2 && line.sourceUp === false)
  gate.policy = (request) => ({
    rewrite: () => ({ status: 400, body: echoingEncodings(expiredTokenXml(request), request) }),
  })
  await exporter.waitForLogs(
    'the source down on the expired token',
    (line) => line.msg === 'usage source unreachable' && /ExpiredToken/.test(String(line.error)),
  )
  // The JSON status carries the source's failure while it lasts: scrubbed as the log line is.
  const down = await exchange(`${exporter.baseUrl}/api/v1/status`, {
    headers: { authorization: `Bearer ${run.token}` },
  })
  assert.match(down.text, /"sourceError":"[^"]*ExpiredToken/)
  assert.match(down.text, /base64url-offset2=/, 'the echo of the encodings reached the status')
  out.push(down.text)
  const landing = await exchange(`${exporter.baseUrl}/`, {
    headers: { authorization: `Bearer ${run.token}` },
  })
  assert.match(landing.text, /base64url-offset2=/, 'the echo of the encodings reached the page')
  out.push(landing.text)
  gate.policy = () => 'forward'
  const before = exporter.logs().filter((line) => line.msg === 'usage scan finished').length
  await exporter.waitForLogs(
    'a good scan after the faults',
    (line) => line.msg === 'usage scan finished' && line.sourceUp === true,
    before + 1,
  )
  assert.deepEqual(await httpSweep(exporter, run.token, out), EXPECTED_STATUSES)
  await exporter.waitForLogs(
    'the receiver accepting entries',
    (line) => line.msg === 'log receiver accepting entries again',
  )
  await assertCleanExit(exporter)

  // Every path was taken: the credentials were used, the failures happened and were logged.
  assert.ok(
    gate.seen.some((request) => run.credentialSeen(request.headers)),
    'the S3 credential was in use',
  )
  const messages = exporter.logs().map((line) => line.msg)
  for (const expected of [
    'bucket scan failed',
    'usage source unreachable',
    'usage source reachable again',
    'log receiver rejected a batch; its entries are dropped',
    'log delivery failing; retrying with backoff',
  ])
    assert.ok(messages.includes(expected), `logged: ${expected}`)
  // Nothing logs at trace; debug lines show the level was in effect.
  assert.ok(exporter.logs().some((line) => line.level === 20))
  assert.deepEqual(
    receiver.requests.slice(0, 3).map((request) => request.status),
    [401, 500, 400],
  )
  assert.ok(
    receiver.acceptedEntries().some((entry) => entry.msg === 'shutting down'),
    'the receiver got the entries logged after its refusals, to the last',
  )
  for (const request of receiver.requests) assert.equal(request.headers.authorization, run.logAuthorization)

  const state = await readFile(stateFile, 'utf8')
  // The id the s3 source gives itself (the endpoint as a normalised URL).
  const loaded = await loadState(stateFile, `s3:${new URL(gate.endpoint).href}`)
  assert.equal(loaded.status, 'loaded', `the state file is whole and loadable: ${JSON.stringify(loaded)}`)

  const captured: Record<string, string> = {
    stdout: exporter.process.stdout(),
    stderr: exporter.process.stderr(),
    http: out.join('\n\n'),
    receiver: receiver.requests
      .map((request) => {
        const { authorization: _expected, ...headers } = request.headers
        return `${request.method} ${request.url}\n${JSON.stringify(headers)}\n${request.body}`
      })
      .join('\n'),
    stateFile: state,
  }
  // Each output against each marker in each form, all reported at once.
  const leaks = Object.entries(captured).flatMap(([where, text]) =>
    findMarkers(text).map((found) => `${where}: ${found}`),
  )
  assert.deepEqual(leaks, [], 'no secret in any output, in any form')
}

test('trace level, S3 key pair, metrics token variable, log bearer token: no secret leaves the process', async (t) => {
  await sweep(t, {
    level: 'trace',
    s3Env: { S3_ACCESS_KEY_ID: MARKERS.s3AccessKeyId, S3_SECRET_ACCESS_KEY: MARKERS.s3SecretKey },
    credentialSeen: (headers) =>
      String(headers.authorization).includes(`Credential=${MARKERS.s3AccessKeyId}/`),
    tokenEnv: async () => ({ METRICS_AUTH_TOKEN: MARKERS.metricsToken }),
    token: MARKERS.metricsToken,
    logEnv: (url) => ({ LOG_HTTP_ENDPOINT: url, LOG_HTTP_AUTH_TOKEN: MARKERS.logToken }),
    logAuthorization: `Bearer ${MARKERS.logToken}`,
  })
})

test('debug level, session credentials from the AWS chain, a token file, credentials in the log URL: no secret leaves the process', async (t) => {
  await sweep(t, {
    level: 'debug',
    // S3_ACCESS_KEY_ID empty: the SDK's default chain reads the AWS_* variables, session token included.
    s3Env: {
      AWS_ACCESS_KEY_ID: MARKERS.awsAccessKeyId,
      AWS_SECRET_ACCESS_KEY: MARKERS.awsSecretKey,
      AWS_SESSION_TOKEN: MARKERS.awsSessionToken,
    },
    credentialSeen: (headers) => headers['x-amz-security-token'] === MARKERS.awsSessionToken,
    tokenEnv: async (cwd) => {
      const file = join(cwd, 'metrics-token')
      await writeFile(file, `${MARKERS.metricsTokenFile}\n`)
      return { METRICS_AUTH_TOKEN_FILE: file }
    },
    token: MARKERS.metricsTokenFile,
    logEnv: (url) => ({
      LOG_HTTP_ENDPOINT: url.replace('http://', `http://shipper:${MARKERS.logUrlPassword}@`),
    }),
    logAuthorization: `Basic ${Buffer.from(`shipper:${MARKERS.logUrlPassword}`).toString('base64')}`,
  })
})

/** Runs the process with a bad configuration: exit code 2, one line per variable, no secret. */
async function refused(
  cwd: string,
  env: Record<string, string>,
  variables: readonly string[],
): Promise<void> {
  const run = await runUntilExit({ LOG_LEVEL: 'trace', ...env }, cwd)
  assert.equal(run.code, 2, run.stderr)
  for (const variable of variables)
    assert.ok(
      run.problems.some((line) => line.startsWith(variable)),
      `${variable} named in ${run.stderr}`,
    )
  assert.equal(run.stdout, '')
  assert.deepEqual(findMarkers(run.stdout + run.stderr), [], 'no secret echoed')
}

test('bad configuration with the secrets among the bad variables: refused, and no secret echoed', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-secrets-config-')
  // Values the schema refuses (relations between variables are checked once these pass).
  await refused(
    cwd,
    {
      METRICS_AUTH_TOKEN: `${MARKERS.metricsToken} with spaces`,
      EVENTS_AUTH_TOKEN: `${MARKERS.eventsToken}/slash`,
      LOG_HTTP_AUTH_TOKEN: `${MARKERS.logToken}\ttab`,
      S3_ENDPOINT: `ftp://key:${MARKERS.s3UrlPassword}@store.example`,
      S3_SECRET_ACCESS_KEY: MARKERS.s3SecretKey,
      PORT: '-1',
    },
    ['METRICS_AUTH_TOKEN', 'EVENTS_AUTH_TOKEN', 'LOG_HTTP_AUTH_TOKEN', 'S3_ENDPOINT', 'PORT'],
  )
  // Relations: a secret without its partner, an endpoint of the wrong scheme with credentials.
  await refused(
    cwd,
    {
      BUCKETS_SOURCE: 's3',
      S3_SECRET_ACCESS_KEY: MARKERS.s3SecretKey,
      LOG_TARGETS: 'console+http',
      LOG_HTTP_ENDPOINT: `gopher://shipper:${MARKERS.logUrlPassword}@logs.example/in`,
      LOG_HTTP_AUTH_TOKEN: MARKERS.logToken,
      METRICS_AUTH_TOKEN: MARKERS.metricsToken,
      METRICS_AUTH_TOKEN_FILE: join(cwd, 'token'),
    },
    ['S3_ACCESS_KEY_ID', 'LOG_HTTP_ENDPOINT', 'METRICS_AUTH_TOKEN_FILE'],
  )
  await refused(cwd, { S3_ACCESS_KEY_ID: MARKERS.s3AccessKeyId }, ['S3_SECRET_ACCESS_KEY'])
  const tokenFile = join(cwd, 'two-words')
  await writeFile(tokenFile, `${MARKERS.metricsTokenFile} ${MARKERS.metricsToken}\n`)
  await refused(cwd, { METRICS_AUTH_TOKEN_FILE: tokenFile }, ['METRICS_AUTH_TOKEN_FILE'])
})

test('scan --once against a store echoing the session token in every encoding: no form in any format', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-secrets-scan-')
  const gate = await startS3Gate(Number(new URL(store.endpoint).port))
  t.after(() => gate.close())
  const token = MARKERS.awsSessionToken
  // A bucket named after the token's hex form (a valid bucket name), so the printed result itself
  // carries a form; every listing refused with the token echoed in every encoding.
  const hexBucket = Buffer.from(token).toString('hex')
  gate.policy = (request) => {
    if (request.operation === 'ListBuckets')
      return {
        rewrite: (body, status) => ({
          status,
          body: body.replace(
            '<Buckets>',
            `<Buckets><Bucket><Name>${hexBucket}</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate></Bucket>`,
          ),
        }),
      }
    if (request.operation === 'ListObjectsV2')
      return {
        rewrite: () => ({ status: 403, body: echoingEncodings(signatureMismatchXml(request), request) }),
      }
    return 'forward'
  }
  const env = {
    BUCKETS_SOURCE: 's3',
    S3_ENDPOINT: gate.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: MARKERS.awsAccessKeyId,
    AWS_SECRET_ACCESS_KEY: MARKERS.awsSecretKey,
    AWS_SESSION_TOKEN: token,
    LOG_LEVEL: 'debug',
    DATA_DIR: cwd,
  }
  const leaks: string[] = []
  for (const format of ['table', 'json', 'prometheus']) {
    const run = await runCommand(['scan', '--once', '--format', format], env, cwd)
    assert.equal(run.code, 1, `${format}: the buckets failed: ${run.stderr}`)
    assert.match(run.stderr, /base64url-offset2=/, `${format}: the echo reached the log lines`)
    assert.match(run.stdout, /ledger/, `${format}: the result was printed`)
    for (const [where, text] of [
      ['result', run.stdout],
      ['log lines', run.stderr],
    ] as const)
      leaks.push(...findMarkers(text).map((found) => `${format} ${where}: ${found}`))
  }
  assert.deepEqual(leaks, [], 'no secret in any format, in any form')
  assert.ok(
    gate.seen.some((request) => request.headers['x-amz-security-token'] === token),
    'the session token was in use',
  )
})
