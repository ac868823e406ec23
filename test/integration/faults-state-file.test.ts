import assert from 'node:assert/strict'
import { chmod, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadState, saveState } from '../../src/snapshot/state-file.js'
import { measuredBytes } from '../../src/snapshot/stored-records.js'
import { deepFreeze } from '../support/deep-freeze.js'
import { sampleValue } from '../support/exposition.js'
import { waitForHttpOk } from '../support/http-ready.js'
import { assertCleanExit, type ServingProcess, startServingProcess } from '../support/serving-process.js'
import { legacyStateText, readStateDocument, storeFolder, writeStateDocument } from '../support/state-file.js'

/**
 * The state file under a running exporter: a folder it cannot write, a symbolic link, what killed
 * writes leave behind, and files whose figures are out of range. Each run is the real process.
 */

const scanned = (exporter: ServingProcess, count = 1) =>
  exporter.waitForLogs(`${count} scan(s)`, (line) => line.msg === 'usage scan finished', count)

test('a STATE_FILE folder the exporter cannot write: one warning (not one a scan), one line when it can again', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-readonly-')
  const folder = join(root, 'state')
  await mkdir(folder)
  // Root writes anywhere, so the exporter runs without that power (unprivileged): 0555 is read-only to it.
  await chmod(folder, 0o555)
  const stateFile = join(folder, 'usage.json')
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '1', LOG_LEVEL: 'debug' },
    root,
    { unprivileged: true },
  )
  await scanned(exporter, 4)
  const warnings = exporter.logs().filter((line) => line.msg === 'cannot write state file')
  assert.equal(warnings.length, 1, JSON.stringify(warnings))
  assert.equal(warnings[0]?.error, `cannot create a temporary file in ${folder}: EACCES: permission denied`)

  await chmod(folder, 0o755)
  await exporter.waitForLogs('the write working again', (line) => line.msg === 'state file written again')
  const loaded = await loadState(stateFile, `fs:${data}`)
  assert.equal(loaded.status, 'loaded')
  assert.equal(exporter.logs().filter((line) => line.msg === 'cannot write state file').length, 1)
  await assertCleanExit(exporter)
})

test('temporary files that killed writes left are removed at start; other files stay', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-stale-')
  const folder = join(root, 'state')
  await mkdir(folder)
  // What a write killed before its rename leaves: this version's name, and the one before's.
  const stale = ['.usage.json.0123456789ab.tmp', '.fedcba987654.usage-state.tmp']
  const kept = ['.other.json.0123456789ab.tmp', 'notes.txt']
  for (const name of [...stale, ...kept]) await writeFile(join(folder, name), Buffer.alloc(1_100_000))
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: join(folder, 'usage.json'), LOG_LEVEL: 'debug' },
    root,
  )
  await scanned(exporter)
  assert.deepEqual((await readdir(folder)).sort(), [...kept, 'usage.json'].sort())
  const removed = exporter
    .logs()
    .filter((line) => line.msg === 'removed temporary files that killed writes left')
  assert.deepEqual(
    removed.map((line) => [line.files, line.bytes]),
    [[2, 2_200_000]],
  )
  await assertCleanExit(exporter)
})

test('a STATE_FILE that is a symbolic link: its target is updated, the link stays', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-link-')
  await mkdir(join(root, 'volume'))
  await mkdir(join(root, 'config'))
  const link = join(root, 'config', 'state.json')
  await symlink('../volume/usage.json', link)
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: link, LOG_LEVEL: 'debug' },
    root,
  )
  await scanned(exporter)
  await assertCleanExit(exporter)
  assert.ok((await lstat(link)).isSymbolicLink(), 'still a link')
  assert.equal(await readlink(link), '../volume/usage.json')
  assert.deepEqual(await readdir(join(root, 'volume')), ['usage.json'])
  const loaded = await loadState(join(root, 'volume', 'usage.json'), `fs:${data}`)
  assert.equal(loaded.status, 'loaded')
  assert.deepEqual(
    loaded.status === 'loaded' ? loaded.snapshot.buckets.map((record) => measuredBytes(record)) : [],
    [1_234],
  )
})

/**
 * A state file for `data` holding `buckets` (each 1,000 bytes unless changed), finished a minute
 * ago; `edit` then changes its JSON as a hand or another program could.
 */
async function craftedStateFile(
  path: string,
  data: string,
  names: readonly string[],
  edit: (file: { snapshot: { completedAtMs: number; buckets: Array<Record<string, unknown>> } }) => void,
): Promise<void> {
  const nowSeconds = Math.floor(Date.now() / 1000)
  await saveState(
    path,
    deepFreeze({
      sourceName: 'fs',
      sourceId: `fs:${data}`,
      sourceUp: true,
      completedAtMs: (nowSeconds - 60) * 1000,
      buckets: names.map((name) => ({
        name,
        usage: { bytes: 1_000, objects: 1 },
        scanSuccess: true,
        scanDurationSeconds: 0.01,
        lastSuccessSeconds: nowSeconds - 60,
      })),
    }),
  )
  const file = await readStateDocument(path)
  edit(file)
  await writeStateDocument(path, file)
}

test('a state file cut short: one warning, a scan at once, the file written whole again; a version 1 file is served', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-cut-')
  const stateFile = join(root, 'usage.json')
  await craftedStateFile(stateFile, data, ['alpha'], () => undefined)
  const whole = await readFile(stateFile, 'utf8')
  // Cut inside the record, as a copy interrupted or a disk that filled would leave it.
  await writeFile(stateFile, whole.slice(0, whole.indexOf('\n') + 40))
  const env = { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600' }
  const exporter = await startServingProcess(t, env, root)
  await scanned(exporter)
  const ignored = exporter.logs().filter((line) => line.msg === 'state file ignored')
  assert.equal(ignored.length, 1, JSON.stringify(ignored))
  assert.match(String(ignored[0]?.reason), /^line 2 is not valid JSON/)
  assert.equal(ignored[0]?.level, 40)
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }), 1_234)
  await assertCleanExit(exporter)
  // Written before the scan's line was logged.
  assert.match(await readFile(stateFile, 'utf8'), /\n\{"end":true,"records":1\}\n$/)
  assert.equal((await loadState(stateFile, `fs:${data}`)).status, 'loaded')

  // The format before this one: served at once, before any scan (the next scan writes version 3).
  await writeFile(stateFile, legacyStateText(await readStateDocument(stateFile)))
  const upgraded = await startServingProcess(t, env, root)
  await upgraded.waitForLogs(
    'the snapshot loaded',
    (line) => line.msg === 'usage snapshot loaded from state file',
  )
  assert.equal(
    sampleValue(await upgraded.scrape(), 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }),
    1_234,
  )
  assert.deepEqual(
    upgraded.logs().filter((line) => line.msg === 'state file ignored'),
    [],
  )
  assert.deepEqual(
    upgraded.logs().filter((line) => line.msg === 'usage scan finished'),
    [],
    'no scan yet',
  )
  await assertCleanExit(upgraded)
})

test('a state file with figures out of range, impossible figures or a bucket twice: those refused and named, a scan at once', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-records-')
  const stateFile = join(root, 'usage.json')
  const names = ['alpha', 'beta', 'delta', 'epsilon', 'eta', 'gamma', 'zeta']
  await craftedStateFile(stateFile, data, names, ({ snapshot }) => {
    const byName = new Map(snapshot.buckets.map((record) => [record.name, record]))
    snapshot.buckets.push({ ...byName.get('beta'), usage: { bytes: 5, objects: 1 } })
    Object.assign(byName.get('delta') ?? {}, { lastSuccessSeconds: Date.UTC(9999, 0, 1) / 1000 })
    Object.assign(byName.get('gamma') ?? {}, { usage: { bytes: 1e300, objects: 1 } })
    // Within every bound, but no fold gives them.
    Object.assign(byName.get('epsilon') ?? {}, { usage: { bytes: 1e15, objects: 0 } })
    Object.assign(byName.get('zeta') ?? {}, { usage: { bytes: 41, objects: 1, largestObjectBytes: 1e12 } })
    Object.assign(byName.get('eta') ?? {}, {
      usage: { bytes: 41, objects: 2, newestModifiedSeconds: 1.6e9, oldestModifiedSeconds: 1.7e9 },
    })
  })
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600' },
    root,
  )
  const [refused] = await exporter.waitForLogs('the refusal', (line) =>
    String(line.msg).startsWith('state file records refused'),
  )
  assert.equal(refused?.count, 6)
  const reasons = Object.fromEntries(
    ((refused?.records ?? []) as Array<{ bucket: string; reason: string }>).map((r) => [r.bucket, r.reason]),
  )
  assert.deepEqual(Object.keys(reasons).sort(), ['beta', 'delta', 'epsilon', 'eta', 'gamma', 'zeta'])
  assert.equal(reasons.beta, '2 records for the same bucket')
  assert.match(String(reasons.delta), new RegExp(`/lastSuccessSeconds = ${Date.UTC(9999, 0, 1) / 1000}: `))
  assert.match(String(reasons.gamma), /\/usage\/bytes = 1e\+300: /)
  assert.match(String(reasons.epsilon), /0 objects cannot hold 1000000000000000 bytes/)
  assert.match(
    String(reasons.zeta),
    /the largest object \(1000000000000 bytes\) is larger than the bucket \(41\)/,
  )
  assert.match(
    String(reasons.eta),
    /the newest object \(1600000000\) is older than the oldest \(1700000000\)/,
  )
  // Those buckets are measured now, not when the file falls due an hour later.
  await scanned(exporter)
  const scrape = await exporter.scrape()
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }), 1_234)
  assert.equal((await fetch(`${exporter.baseUrl}/`)).status, 200)
  await assertCleanExit(exporter)
})

test('a state file finished at 1e300 ms or in year 9999: ignored with a warning, the landing page answers', async (t) => {
  for (const completedAtMs of [1e300, Date.UTC(9999, 0, 1)]) {
    const { root, data } = await storeFolder(t, 'objstore-state-time-')
    const stateFile = join(root, 'usage.json')
    await craftedStateFile(stateFile, data, ['alpha'], ({ snapshot }) => {
      snapshot.completedAtMs = completedAtMs
    })
    const exporter = await startServingProcess(
      t,
      { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'debug' },
      root,
    )
    const [ignored] = await exporter.waitForLogs(
      'the file refused',
      (line) => line.msg === 'state file ignored',
    )
    assert.equal(
      ignored?.reason,
      `completedAtMs ${completedAtMs} is not a time between 2000-01-01T00:00:00.000Z and now`,
    )
    // Not served as fresh: the exporter scans at once rather than an hour after the file's time.
    await scanned(exporter)
    const page = await fetch(`${exporter.baseUrl}/`)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /last scan finished/)
    await assertCleanExit(exporter)
  }
})

test('ready means rendered: from the first 200 of /readyz, a scrape that cannot wait has the usage families', async (t) => {
  const { root, data } = await storeFolder(t, 'objstore-state-ready-')
  const stateFile = join(root, 'usage.json')
  // Enough buckets that the first rendering (on a worker) outlasts a scrape's 0.5 s budget.
  const names = Array.from({ length: 20_000 }, (_, index) => `bucket-${String(index).padStart(5, '0')}`)
  await craftedStateFile(stateFile, data, names, () => undefined)
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, STATE_FILE: stateFile, SCAN_INTERVAL_SECONDS: '3600' },
    root,
  )
  await waitForHttpOk(`${exporter.baseUrl}/readyz`, () => exporter.process.child.exitCode === null, 120_000)
  // Prometheus saying it gives up after 0.5 s: the usage collector has no time to wait.
  const scrape = await exporter.scrape({ 'X-Prometheus-Scrape-Timeout-Seconds': '0.5' })
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'usage' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'bucket-19999' }), 1000)
})
