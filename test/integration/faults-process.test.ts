import assert from 'node:assert/strict'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { get, type IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { test } from 'node:test'
import { SECURITY_HEADERS } from '../../src/server/plugins/security-headers.js'
import { loadState } from '../../src/snapshot/state-file.js'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { waitForHttpOk } from '../support/http-ready.js'
import { freePort, startExporterProcess } from '../support/process.js'
import { startS3Gate } from '../support/s3-gate.js'
import { type StoredBucket, startXmlStore } from '../support/s3-xml-store.js'
import { scratchFolder } from '../support/scratch.js'
import {
  assertCleanExit,
  STRICT_REJECTIONS,
  startServingProcess,
  unexpectedStderr,
} from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The process under signals, load and its own bugs: SIGTERM in the middle of a scan and of
 * scrapes, a scrape storm while a scan runs, and proof that the strict-rejection runs every fault
 * test uses would catch an unhandled rejection.
 */

/** One scrape over its own connection, and how it ended: answered whole, or failed and where. */
type Attempt =
  | {
      readonly kind: 'answered'
      readonly status: number
      readonly headers: IncomingHttpHeaders
      readonly body: string
    }
  | { readonly kind: 'failed'; readonly afterHeaders: boolean; readonly code: string }

function attempt(url: string): Promise<Attempt> {
  return new Promise((resolve) => {
    let afterHeaders = false
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'failed', afterHeaders, code: error.code ?? error.message })
    const request = get(url, { agent: false, timeout: 60_000 }, (response) => {
      afterHeaders = true
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', failed)
      response.on('aborted', () => failed(Object.assign(new Error('aborted'), { code: 'ABORTED' })))
      response.on('end', () => {
        if (!response.complete) return
        resolve({
          kind: 'answered',
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        })
      })
    })
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    request.on('error', failed)
  })
}

/**
 * A 200 is a whole exposition; a 503 is a scrape shed under pressure, which says when to come
 * back, or (`closing`) one that arrived while the server was closing (Fastify's own 503).
 */
function assertWholeAnswer(result: Attempt, { closing = false } = {}): void {
  if (result.kind !== 'answered') return
  // Every answer carries the security headers, Fastify's own 503 while closing included.
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    assert.equal(result.headers[name], value, `${name} on a ${result.status}`)
  if (result.status === 503) {
    if (!closing) assert.equal(result.headers['retry-after'], '10', 'a shed scrape says when to retry')
    return
  }
  assert.equal(result.status, 200, result.body)
  const scrape = parseExposition(result.body)
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives'), 1, 'a whole exposition')
  assert.ok(result.body.endsWith('\n'))
}

/** The XML store checks no signature; explicit keys keep the SDK from looking for credentials elsewhere. */
const XML_STORE_KEYS = { S3_ACCESS_KEY_ID: 'XMLSTORE', S3_SECRET_ACCESS_KEY: 'xml-store-secret' }

const firstGoodScan = (line: Record<string, unknown>) =>
  line.msg === 'usage scan finished' && line.sourceUp === true && line.failed === 0

async function fsStore(root: string): Promise<string> {
  const data = join(root, 'data')
  await mkdir(join(data, 'alpha'), { recursive: true })
  await writeFile(join(data, 'alpha', 'a'), Buffer.alloc(4096))
  await writeFile(join(data, 'alpha', 'b'), Buffer.alloc(100))
  return data
}

test('SIGTERM during a scan: exit 0 at once, the state file whole; a restart serves it', async (t) => {
  const bucket = (name: string, size: number): StoredBucket => ({
    name,
    versions: [
      { key: 'k', versionId: 'null', isLatest: true, lastModified: new Date(1_790_000_000_000), size },
    ],
    uploads: [],
  })
  const store = await startXmlStore([bucket('held', 1234), bucket('other', 5)], 1000)
  t.after(() => store.close())
  const gate = await startS3Gate(Number(new URL(store.endpoint).port))
  t.after(() => gate.close())
  const cwd = await scratchFolder(t, 'objstore-sigterm-scan-')
  const stateFile = join(cwd, 'state', 'usage.json')
  await mkdir(join(cwd, 'state'))
  const env = {
    BUCKETS_SOURCE: 's3',
    S3_ENDPOINT: gate.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    ...XML_STORE_KEYS,
    DATA_DIR: cwd,
    // The s3 source reports no drive by default: one is named, which a whole answer counts.
    DRIVES: cwd,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '1',
    LOG_LEVEL: 'debug',
  }
  const exporter = await startServingProcess(t, env, cwd)
  await exporter.waitForLogs('a first scan', firstGoodScan)
  const written = await readFile(stateFile, 'utf8')

  // The next scan is held in the middle: its listing of `held` is never answered.
  gate.policy = (request) =>
    request.operation === 'ListObjectsV2' && request.bucket === 'held' ? 'hang' : 'forward'
  await waitFor('a scan in the middle of a listing', () => gate.heldCount > 0, { timeoutMs: 10_000 })
  await assertCleanExit(exporter)
  assert.equal(gate.heldCount, 0, 'the held listing was let go')
  assert.equal(
    await readFile(stateFile, 'utf8'),
    written,
    'the state file of the last finished scan, untouched',
  )
  assert.deepEqual(await readdir(join(cwd, 'state')), ['usage.json'], 'no temporary file left')
  const loaded = await loadState(stateFile, `s3:${new URL(gate.endpoint).href}`)
  assert.equal(loaded.status, 'loaded')

  // A restart with the store unreachable serves the saved figures.
  await gate.refuse()
  const restarted = await startServingProcess(t, env, cwd)
  // The state file loads after the server listens: ready once it is loaded, then it is served.
  await waitForHttpOk(`${restarted.baseUrl}/readyz`, () => restarted.process.child.exitCode === null)
  const scrape = await restarted.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'held' }), 1234)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'other' }), 5)
  await assertCleanExit(restarted)
})

test('SIGTERM during scrapes: those in flight finish whole, later ones are refused or 503, exit 0, state intact', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-sigterm-scrape-')
  const data = await fsStore(cwd)
  const stateFile = join(cwd, 'usage.json')
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: stateFile, LOG_LEVEL: 'debug' },
    cwd,
  )
  await exporter.waitForLogs('a first scan', firstGoodScan)
  const url = `${exporter.baseUrl}/metrics`
  let signalled = false
  let answeredAfterSignal = 0
  const results = await Promise.all(
    Array.from({ length: 200 }, async () => {
      const result = await attempt(url)
      if (result.kind === 'answered' && result.status === 200) {
        if (signalled) answeredAfterSignal++
        // SIGTERM once the first scrapes are answered, with the rest still queued in the server.
        else if (!signalled) {
          signalled = true
          exporter.process.kill('SIGTERM')
        }
      }
      return result
    }),
  )
  assert.equal(await exporter.process.exited, 0, exporter.process.stderr())
  assert.equal(unexpectedStderr(exporter.process.stderr()), '')
  for (const result of results) {
    assertWholeAnswer(result, { closing: true })
    if (result.kind === 'failed') {
      assert.equal(result.afterHeaders, false, `an answer cut short (${result.code})`)
      assert.ok(['ECONNREFUSED', 'ECONNRESET'].includes(result.code), result.code)
    }
  }
  t.diagnostic(
    `200: ${results.filter((r) => r.kind === 'answered' && r.status === 200).length} (${answeredAfterSignal} after SIGTERM), ` +
      `503: ${results.filter((r) => r.kind === 'answered' && r.status === 503).length}, ` +
      `not connected: ${results.filter((r) => r.kind === 'failed').length}`,
  )
  assert.ok(answeredAfterSignal > 0, 'scrapes in flight at SIGTERM were answered')
  assert.equal((await loadState(stateFile, `fs:${data}`)).status, 'loaded')
})

/** Peak and current resident memory of a process, in bytes (Linux /proc). */
async function residentMemory(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { peak: kib('VmHWM'), now: kib('VmRSS') }
}

const STORM_CONNECTIONS = 300
const MAX_WAVES = 15
/** Far above what a storm costs (a few MiB): catches memory growing with connections or requests. */
const MEMORY_BOUND = 256 * 1024 * 1024

test('a scrape storm while a scan runs: whole answers or 503s, memory bounded, the scan completes', async (t) => {
  const keys = 2500
  const big: StoredBucket = {
    name: 'big',
    versions: Array.from({ length: keys }, (_, index) => ({
      key: `k${String(index).padStart(5, '0')}`,
      versionId: 'null',
      isLatest: true,
      lastModified: new Date(1_790_000_000_000),
      size: 10,
    })),
    uploads: [],
  }
  const store = await startXmlStore([big], 1000)
  t.after(() => store.close())
  const gate = await startS3Gate(Number(new URL(store.endpoint).port))
  t.after(() => gate.close())
  const cwd = await scratchFolder(t, 'objstore-storm-')
  const exporter = await startServingProcess(
    t,
    {
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: gate.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      ...XML_STORE_KEYS,
      DATA_DIR: cwd,
      // The s3 source reports no drive by default: one is named, which a whole answer counts.
      DRIVES: cwd,
      SCAN_INTERVAL_SECONDS: '1',
      SCAN_TIMEOUT_SECONDS: '120',
      LOG_LEVEL: 'debug',
      // Low, so that a storm is overload: the exporter must shed, not fall. A scrape is cheap
      // (runtime families cached, the usage block pre-rendered): at 10 ms a quiet machine served
      // 1,800 scrapes in 6 waves without lagging the loop enough to shed.
      MAX_EVENT_LOOP_DELAY_MS: '5',
    },
    cwd,
  )
  await exporter.waitForLogs('a first scan', firstGoodScan)
  // Every page of `big` now trickles back over about a second: a scan takes three or more.
  gate.policy = (request) =>
    request.operation === 'ListObjectsV2' ? { slow: { chunks: 10, gapMs: 100 } } : 'forward'
  await waitFor('a slow scan under way', () => gate.seen.some((request) => request.verdict === 'slow'))
  const scansBefore = exporter.logs().filter((line) => line.msg === 'usage scan finished').length
  const pid = exporter.process.child.pid as number
  const before = await residentMemory(pid)

  const results: Attempt[] = []
  let waves = 0
  // Waves until the exporter sheds (load shedding samples the loop delay about once a second).
  while (waves < MAX_WAVES) {
    const url = `${exporter.baseUrl}/metrics`
    results.push(...(await Promise.all(Array.from({ length: STORM_CONNECTIONS }, () => attempt(url)))))
    waves++
    // Until both were seen: shedding starts and stops with the sampled delay, so a storm that
    // sheds from its first wave serves again once 503s have made the loop calm, and one that is
    // served at first sheds once enough waves lag the loop.
    const seen = (status: number) =>
      results.some((result) => result.kind === 'answered' && result.status === status)
    if (waves >= 2 && seen(503) && seen(200)) break
  }
  const after = await residentMemory(pid)
  const count = (status: number) =>
    results.filter((result) => result.kind === 'answered' && result.status === status).length
  t.diagnostic(
    `${waves} waves of ${STORM_CONNECTIONS} connections: ${count(200)} answered 200, ${count(503)} shed with 503; ` +
      `resident memory ${(before.now / 2 ** 20).toFixed(0)} MiB before, peak ${(after.peak / 2 ** 20).toFixed(0)} MiB`,
  )
  for (const result of results) {
    assert.equal(result.kind, 'answered', `every connection answered: ${JSON.stringify(result)}`)
    assertWholeAnswer(result)
  }
  assert.ok(count(503) > 0, 'overload was shed with 503')
  assert.ok(count(200) > 0, 'scrapes were served meanwhile')
  assert.ok(after.peak - Math.max(before.peak, before.now) < MEMORY_BOUND, 'memory bounded')

  const finished = await exporter.waitForLogs(
    'the scan under the storm to complete',
    (line) => line.msg === 'usage scan finished',
    scansBefore + 1,
    60_000,
  )
  assert.equal(finished[scansBefore]?.sourceUp, true)
  assert.equal(finished[scansBefore]?.failed, 0)
  await waitFor('a scrape answered once the storm is over', async () => {
    const result = await attempt(`${exporter.baseUrl}/metrics`)
    return result.kind === 'answered' && result.status === 200
  })
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_objects', { bucket: 'big' }), keys)
  assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket: 'big' }), 1)
  await assertCleanExit(exporter)
})

test('an unhandled rejection in the process is caught by the strict runs: exit code 1 and its stack on stderr', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-rejection-')
  // Planted by a preload, as a bug anywhere in the process would leave it: nobody handles it.
  const planted = `data:text/javascript,${encodeURIComponent(
    "setTimeout(() => { Promise.reject(new Error('planted rejection')) }, 300)",
  )}`
  const port = await freePort()
  const child = startExporterProcess({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: cwd }, cwd, {
    nodeArgs: [...STRICT_REJECTIONS, '--import', planted],
  })
  t.after(() => child.kill('SIGKILL'))
  assert.equal(await child.exited, 1)
  assert.match(unexpectedStderr(child.stderr()), /Error: planted rejection/)
})
