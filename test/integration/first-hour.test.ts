import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { access, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { sampleValue } from '../support/exposition.js'
import { type ExporterProcess, freePort, startExporterProcess } from '../support/process.js'
import { fillBucket, S3RVER_KEYS, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import { type ServingProcess, startServingProcess } from '../support/serving-process.js'

/**
 * The traps an operator met in the first hour (issue 13), each on the real process: a remote
 * source reporting this host's disk, typos that silently read another store, a start-up line that
 * did not say what is read, scans that happened silently, multi-line warnings among JSON lines.
 */

const PREFIX = 'objstore-exporter: invalid configuration: '

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}

/** Every stdout and stderr line of the process is one JSON object (nothing plain, no warning text). */
function assertOnlyJsonLines(serving: ServingProcess): void {
  assert.equal(serving.process.stderr(), '', 'nothing on stderr')
  for (const line of serving.process.stdout().split('\n')) {
    if (line !== '') assert.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line}`)
  }
}

/** The process must end by itself with code 2 and exactly `expected` as its stderr lines. */
async function assertRefused(child: ExporterProcess, expected: readonly string[]): Promise<void> {
  const code = await Promise.race([child.exited, sleep(30_000, 'still running', { ref: false })])
  assert.equal(code, 2, `${child.stdout()}${child.stderr()}`)
  assert.deepEqual(
    child.stderr().trim().split('\n').sort(),
    expected.map((line) => `${PREFIX}${line}`).sort(),
  )
}

async function refusedIn(t: TestContext, env: Record<string, string>): Promise<ExporterProcess> {
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const child = startExporterProcess({ HOST: '127.0.0.1', PORT: String(await freePort()), ...env }, cwd)
  t.after(() => child.kill('SIGKILL'))
  return child
}

test('s3 source: no drive of this host, no ./data, one start-up line, scan summary and timestamps, JSON only', async (t) => {
  const s3 = await startS3rver()
  t.after(() => s3.stop())
  await fillBucket(s3.client, 'first-bucket', [
    { key: 'a', size: 100 },
    { key: 'b', size: 250 },
  ])
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const before = Date.now()
  const serving = await startServingProcess(
    t,
    {
      ...s3.exporterEnv,
      LOG_MODE: 'json',
      BUCKETS_EXCLUDE: 'tmp-*',
      SCAN_INTERVAL_SECONDS: '600',
    },
    cwd,
  )
  const [listening] = await serving.waitForLogs(
    'start-up line',
    (line) => line.msg === 'objstore-exporter listening',
  )
  assert.equal(listening?.level, 30, 'at info')
  assert.equal(listening?.source, 's3')
  assert.equal(listening?.endpoint, `${s3.endpoint}/`)
  assert.equal(listening?.buckets, 'every bucket listed; BUCKETS_EXCLUDE=tmp-*')
  assert.equal(listening?.scanIntervalSeconds, 600)
  assert.deepEqual(listening?.drives, [])

  const [scan] = await serving.waitForLogs('scan summary', (line) => line.msg === 'usage scan finished')
  assert.equal(scan?.level, 30, 'each scan is logged at info')
  assert.deepEqual(
    { buckets: scan?.buckets, objects: scan?.objects, bytes: scan?.bytes, failed: scan?.failed },
    { buckets: 1, objects: 2, bytes: 350, failed: 0 },
  )
  assert.equal(typeof scan?.durationSeconds, 'number')

  const scrape = await serving.scrape()
  const after = Date.now()
  for (const sample of scrape.samples) {
    assert.ok(
      !/^objstore_cluster_capacity_/.test(sample.name) && sample.labels.drive === undefined,
      `${sample.name}: no capacity or drive of this host`,
    )
  }
  // The drive counts say there are none.
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives', {}), 0)
  const started = sampleValue(scrape, 'objstore_usage_last_scan_started_timestamp_seconds', {})
  const completed = sampleValue(scrape, 'objstore_usage_last_scan_completed_timestamp_seconds', {})
  const duration = sampleValue(scrape, 'objstore_usage_last_scan_duration_seconds', {})
  assert.ok(before / 1000 <= started && started <= completed && completed <= after / 1000, 'times in order')
  assert.ok(Math.abs(completed - started - duration) < 0.002, 'duration = completed - started')
  assert.equal(await exists(join(cwd, 'data')), false, './data is not created for a remote source')

  const page = await (await fetch(`${serving.baseUrl}/`)).text()
  assert.match(page, /<p id="next-scan">Next scan at <time datetime="[^"]+">[^<]+<\/time> \(in \d+ min\)/)
  assert.match(page, /id="no-drives">No drive configured/)

  assert.equal(await serving.stop(), 0)
  // On a supported Node (package.json's engines) no dependency warns about the runtime: a normal
  // start logs no process warning at all (on Node 20 the AWS SDK's NodeVersionSupportWarning did).
  const warnings = serving.logs().filter((line) => String(line.msg).startsWith('process warning'))
  assert.deepEqual(warnings, [], `process warnings on Node ${process.versions.node}`)
  assertOnlyJsonLines(serving)
})

test('fs source: DRIVES empty means DATA_DIR, created, its filesystem reported', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const serving = await startServingProcess(t, { LOG_MODE: 'json' }, cwd)
  const [listening] = await serving.waitForLogs(
    'start-up line',
    (line) => line.msg === 'objstore-exporter listening',
  )
  assert.equal(listening?.source, 'fs')
  assert.equal(listening?.endpoint, './data')
  assert.deepEqual(listening?.drives, ['./data'])
  assert.equal(await exists(join(cwd, 'data')), true)
  const scrape = await serving.scrape()
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives', {}), 1)
  assert.ok(sampleValue(scrape, 'objstore_cluster_capacity_raw_total_bytes', {}) > 0)
  assert.equal(await serving.stop(), 0)
})

test('a near-miss of BUCKETS_SOURCE or S3_ENDPOINT stops start-up instead of reading another store', async (t) => {
  const child = await refusedIn(t, { BUCKET_SOURCE: 's3', S3_ENDPOINT_URL: 'http://127.0.0.1:9000' })
  await assertRefused(child, [
    'BUCKET_SOURCE: not a variable of objstore-exporter; did you mean BUCKETS_SOURCE? It chooses which store is read, so it is never ignored: rename or remove it',
    'S3_ENDPOINT_URL: not a variable of objstore-exporter; did you mean S3_ENDPOINT? It chooses which store is read, so it is never ignored: rename or remove it',
  ])
})

test('S3_ENDPOINT set but empty with the s3 source is refused: it would mean AWS S3', async (t) => {
  const child = await refusedIn(t, {
    BUCKETS_SOURCE: 's3',
    S3_ENDPOINT: '',
    S3_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
  })
  await assertRefused(child, [
    "S3_ENDPOINT: set but empty; with BUCKETS_SOURCE=s3 that would mean AWS S3 (and send the access key id there): set the store's URL, or remove the variable to use AWS S3",
  ])
})

test('S3 variables set while the source is fs: one warning naming them', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const serving = await startServingProcess(
    t,
    {
      LOG_MODE: 'json',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      SCAN_VERSIONS: 'true',
      RGW_ADMIN_PATH: 'admin',
    },
    cwd,
  )
  const [warning] = await serving.waitForLogs('the warning', (line) => Array.isArray(line.variables))
  assert.equal(warning?.level, 40)
  assert.deepEqual(warning?.variables, ['RGW_ADMIN_PATH', 'S3_ENDPOINT', 'SCAN_VERSIONS'])
  assert.match(String(warning?.msg), /BUCKETS_SOURCE=fs reads none of them/)
  assert.equal(await serving.stop(), 0)
})

/** df's Used and Avail of the filesystem holding `path`, in bytes. */
async function df(path: string): Promise<{ used: number; avail: number }> {
  const { stdout } = await promisify(execFile)('df', ['-B1', '--output=used,avail', path])
  const [used, avail] = (stdout.trim().split('\n')[1] ?? '').trim().split(/\s+/).map(Number)
  assert.ok(Number.isFinite(used) && Number.isFinite(avail), `df output: ${stdout}`)
  return { used: used as number, avail: avail as number }
}

test("one 'used' everywhere: the page's Use% and the used and free families are df's for the same path", async (t) => {
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const serving = await startServingProcess(t, { LOG_MODE: 'json', DRIVES: cwd }, cwd)
  // The page shows what the last scrape found.
  const scrape = await serving.scrape()
  const page = await (await fetch(`${serving.baseUrl}/`)).text()
  const expected = await df(cwd)
  const shown = /<tr data-drive="[^"]+">.*?(\d+\.\d)% used<\/td>/.exec(page)?.[1]
  const dfShare = (100 * expected.used) / (expected.used + expected.avail)
  // The page rounds to 0.1%; the filesystem may move a little between the scrape and df.
  assert.ok(Math.abs(Number(shown) - dfShare) <= 0.15, `page ${shown}% used, df ${dfShare.toFixed(2)}%`)
  const used = sampleValue(scrape, 'objstore_node_drive_used_bytes', { drive: cwd })
  const free = sampleValue(scrape, 'objstore_node_drive_free_bytes', { drive: cwd })
  const slack = 0.002 * (expected.used + expected.avail)
  assert.ok(Math.abs(used - expected.used) <= slack, `used ${used}, df ${expected.used}`)
  assert.ok(Math.abs(free - expected.avail) <= slack, `free ${free}, df avail ${expected.avail}`)
  assert.equal(await serving.stop(), 0)
})

test('source down: the page gives the reason beside the source, /readyz stays ready (it can serve /metrics)', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  const closed = await freePort()
  const serving = await startServingProcess(
    t,
    {
      LOG_MODE: 'json',
      BUCKETS_SOURCE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${closed}`,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
    },
    cwd,
  )
  const [scan] = await serving.waitForLogs(
    'a scan of the source down',
    (line) => line.msg === 'usage scan finished',
  )
  assert.equal(scan?.sourceUp, false)
  assert.match(String(scan?.error), /ECONNREFUSED/)
  const page = await (await fetch(`${serving.baseUrl}/`)).text()
  assert.match(
    page,
    /<tr data-source="s3"><td>source <code>s3<\/code><\/td><td class="state bad">down: ListBuckets: [^<]*ECONNREFUSED/,
  )
  assert.match(
    page,
    /id="last-scan">Source <code>s3<\/code> <span class="state bad">down: ListBuckets: [^<]*ECONNREFUSED/,
  )
  assert.ok(!page.includes(S3RVER_KEYS.secretAccessKey), 'no secret on the page')
  const ready = await fetch(`${serving.baseUrl}/readyz`)
  assert.equal(ready.status, 200, 'ready: /metrics serves source_up 0 and the last good figures')
  const scrape = await serving.scrape()
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), 0)
  assert.equal(await serving.stop(), 0)
})

test('a source that lists no bucket says why once: an s3 key at start, any source that listed some before', async (t) => {
  // s3: a key that owns no bucket sees none (ListBuckets answers only the key's own buckets).
  const s3 = await startS3rver()
  t.after(() => s3.stop())
  const s3Serving = await startServingProcess(
    t,
    { ...s3.exporterEnv, LOG_MODE: 'json', SCAN_INTERVAL_SECONDS: '1' },
    await scratchFolder(t, 'objstore-first-hour-'),
  )
  const noBucket = (line: Record<string, unknown>) => /lists no bucket/.test(String(line.msg))
  await s3Serving.waitForLogs('three scans', (line) => line.msg === 'usage scan finished', 3)
  const [s3Warning, ...more] = s3Serving.logs().filter(noBucket)
  assert.equal(more.length, 0, 'said once, not once a round')
  assert.equal(s3Warning?.level, 40)
  assert.match(String(s3Warning?.msg), /only the buckets the key's user owns/)
  assert.equal(await s3Serving.stop(), 0)

  // fs: an empty data directory at start is ordinary; buckets that all vanish are not.
  const cwd = await scratchFolder(t, 'objstore-first-hour-')
  await mkdir(join(cwd, 'data', 'photos'), { recursive: true })
  const fsServing = await startServingProcess(t, { LOG_MODE: 'json', SCAN_INTERVAL_SECONDS: '1' }, cwd)
  await fsServing.waitForLogs('a scan', (line) => line.msg === 'usage scan finished' && line.buckets === 1)
  assert.equal(fsServing.logs().filter(noBucket).length, 0)
  await rm(join(cwd, 'data', 'photos'), { recursive: true })
  const [fsWarning] = await fsServing.waitForLogs('the warning', noBucket)
  assert.match(String(fsWarning?.msg), /the fs source lists no bucket, 1 before/)
  assert.equal(await fsServing.stop(), 0)
})
