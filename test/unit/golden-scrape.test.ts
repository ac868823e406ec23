import assert from 'node:assert/strict'
import type { StatsFs } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { saveState } from '../../src/snapshot/state-file.js'
import { deepFreeze } from '../support/deep-freeze.js'
import { rawGet, startExporter } from '../support/exporter.js'
import { scratchFolder } from '../support/scratch.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

/**
 * The golden scrape, as node_exporter's collector/fixtures/e2e-output.txt: the whole exporter
 * (createExporter, its real Fastify app, listening on loopback) serves a FIXED usage snapshot
 * (loaded from a state file, odd bucket names, versions, multipart uploads, quotas, unreadable
 * entries, several storage classes, a failed and a never-measured bucket) and a fake statfs (four
 * drives, one failing). Each body, text 0.0.4 and OpenMetrics, plain and gzip-decoded, must equal
 * test/fixtures/golden-scrape.prom and golden-scrape.openmetrics.txt byte for byte, so any change
 * to the output shows as a diff in review.
 *
 * What cannot be fixed is made deterministic, and only that:
 * - the runtime and process families (process_*, nodejs_*: memory, CPU, handles, start time, the
 *   Node version) are left out of the comparison by family name (RUNTIME_FAMILY), whole;
 * - the VALUES of durations and ages measured on the clock (CLOCK_FAMILIES: each collector's
 *   scrape duration; the snapshot's age, whose completion time is the test's clock so that the
 *   scanner does not start a scan within SCAN_INTERVAL) are replaced by `<duration>`; their
 *   names and labels stay;
 * - the values of the drive error counters (PROBE_COUNTERS), which count the scrapes' own probes,
 *   are replaced by `<probes>`;
 * - the build info's node_version label value (the Node release running the test) is `<node>`.
 * Nothing else is touched: bucket scan durations and last-success times are the snapshot's own.
 *
 * After an intended change of the output: `UPDATE_GOLDEN=1 npm run test:unit` rewrites both files
 * (this test then passes); review the diff and commit it with the change.
 */

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname
const UPDATE = process.env.UPDATE_GOLDEN === '1'

/** Families of the runtime, whose values are the process's own (compared nowhere here). */
const RUNTIME_FAMILY = /^(process_|nodejs_)/
/** Families whose sample values are durations or ages measured on the clock. */
const CLOCK_FAMILIES = new Set([
  'objstore_scrape_collector_duration_seconds',
  'objstore_usage_snapshot_age_seconds',
  'objstore_usage_last_scan_started_timestamp_seconds',
  'objstore_usage_last_scan_completed_timestamp_seconds',
])
/** Counters of drive probes: every scrape probes the drives, so each scrape counts one more. */
const PROBE_COUNTERS = new Set(['objstore_node_drive_availability_errors_total'])

/** Names a store allows and a few that test escaping and ordering. */
const BUCKETS = [
  'a',
  'archive.2026-01',
  'logs--prod',
  'zz-last',
  'Bucket_Upper',
  'with space',
  'quote"and\\backslash',
  'ünïcødé',
  'photos',
  'b0',
  'x.y.z',
  'tmp',
] as const

/** Four drives of fixed sizes; the fourth does not answer statfs. */
function fakeStatfs(path: string): Promise<StatsFs> {
  const index = Number(path.slice(-1))
  if (index === 4) return Promise.reject(Object.assign(new Error(`EIO: ${path}`), { code: 'EIO' }))
  const blocks = 1_000_000 * index
  return Promise.resolve({
    type: 0xef53,
    bsize: 4096,
    blocks,
    bfree: Math.floor(blocks / (index + 1)),
    bavail: Math.floor(blocks / (index + 2)),
    files: 65_536 * index,
    ffree: 60_000 * index,
  })
}

/** Family name of a sample or comment line of text 0.0.4 or OpenMetrics. */
function familyOf(line: string): string {
  if (line.startsWith('# HELP ') || line.startsWith('# TYPE ') || line.startsWith('# UNIT ')) {
    return line.slice(7).split(' ')[0] ?? ''
  }
  return /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? ''
}

/** The body with runtime families left out and clock-measured values replaced (see above). */
function comparable(body: string): string {
  return (
    body
      .split('\n')
      .filter((line) => line === '# EOF' || line === '' || !RUNTIME_FAMILY.test(familyOf(line)))
      .map((line) => {
        if (line.startsWith('#')) return line
        if (CLOCK_FAMILIES.has(familyOf(line))) return line.replace(/ [^ ]+$/, ' <duration>')
        return PROBE_COUNTERS.has(familyOf(line)) ? line.replace(/ [^ ]+$/, ' <probes>') : line
      })
      // The build info names the Node release running the test; the golden file names none.
      .map((line) => line.replaceAll(`node_version="${process.version}"`, 'node_version="<node>"'))
      .join('\n')
  )
}

const FORMATS = [
  { file: 'golden-scrape.prom', accept: 'text/plain' },
  { file: 'golden-scrape.openmetrics.txt', accept: 'application/openmetrics-text; version=1.0.0' },
] as const

test('the scrape of a fixed snapshot and fake drives equals the golden files, plain and gzip', async (t) => {
  const folder = await scratchFolder(t)
  const dataDir = join(folder, 'data')
  const stateFile = join(folder, 'state.json')
  const { snapshot } = generateSnapshot({
    buckets: [...BUCKETS].sort(),
    objectsPerBucket: 25,
    sourceName: 'fs',
    sourceId: `fs:${dataDir}`,
    seed: 12,
    prefixes: true,
  })
  // Completed now: the scanner schedules its first scan a SCAN_INTERVAL after it, not at once.
  // Started 1.5 s before: the last scan's duration is a fixed figure, its times the clock's.
  const completedAtMs = Date.now()
  await saveState(stateFile, deepFreeze({ ...snapshot, completedAtMs, startedAtMs: completedAtMs - 1500 }))
  const running = await startExporter(
    {
      DATA_DIR: dataDir,
      STATE_FILE: stateFile,
      SCAN_INTERVAL_SECONDS: '604800',
      DRIVES: '/golden/disk{1...4}',
      // Every group, the opt-in ones too, so a change to any family's output shows here.
      BUCKET_METRICS: 'all',
    },
    { statfs: fakeStatfs },
  )
  t.after(() => running.close())
  assert.equal(running.exporter.scanner.snapshot?.buckets.length, BUCKETS.length, 'every record loaded')
  const url = `${running.baseUrl}${running.config.METRICS_PATH}`
  for (const { file, accept } of FORMATS) {
    const plain = await rawGet(url, { Accept: accept })
    assert.equal(plain.status, 200)
    assert.equal(plain.headers['content-encoding'], undefined)
    const zipped = await rawGet(url, { Accept: accept, 'Accept-Encoding': 'gzip' })
    assert.equal(zipped.status, 200)
    assert.equal(zipped.headers['content-encoding'], 'gzip')
    const body = comparable(plain.body.toString('utf8'))
    assert.equal(comparable(gunzipSync(zipped.body).toString('utf8')), body, `${file}: gzip equals plain`)
    const path = join(FIXTURES, file)
    if (UPDATE) await writeFile(path, body)
    assert.equal(body, await readFile(path, 'utf8'), `${file}: the scrape differs from the golden file`)
  }
})
