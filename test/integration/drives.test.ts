import assert from 'node:assert/strict'
import type { StatsFs } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { capacityOf, statfs } from '../../src/collectors/drive-probe.js'
import { startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'

let root: string

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'objstore-drives-'))
  for (const disk of ['disk1', 'disk2', 'disk3']) await mkdir(join(root, disk))
})
after(() => rm(root, { recursive: true, force: true }))

test('each drive of an ellipsis pattern is reported, a missing one offline, cluster capacity summed', async (t) => {
  // disk4 does not exist: an offline drive, not a crash.
  const exporter = await startExporter({ DRIVES: `${join(root, 'disk{1...4}')}`, EC_PARITY: '1' })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  const expected = capacityOf(await statfs(root))
  for (const disk of ['disk1', 'disk2', 'disk3']) {
    const drive = join(root, disk)
    assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive }), 1)
    assert.equal(sampleValue(scrape, 'objstore_node_drive_total_bytes', { drive }), expected.totalBytes)
    assert.equal(sampleValue(scrape, 'objstore_node_drive_total_inodes', { drive }), expected.totalInodes)
  }
  const missing = join(root, 'disk4')
  assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive: missing }), 0)
  assert.deepEqual(
    scrape.samples.filter((sample) => sample.labels.drive === missing).map((sample) => sample.name),
    [
      'objstore_node_drive_online',
      'objstore_node_drive_availability_errors_total',
      'objstore_node_drive_timeout_errors_total',
      'objstore_node_drive_io_waiting',
    ],
    'an offline drive has no capacity samples, only its state and error counters',
  )
  // MinIO's per-drive counters: the failed statfs counts, no timeout, nothing left waiting.
  assert.equal(sampleValue(scrape, 'objstore_node_drive_availability_errors_total', { drive: missing }), 1)
  assert.equal(sampleValue(scrape, 'objstore_node_drive_timeout_errors_total', { drive: missing }), 0)
  assert.equal(sampleValue(scrape, 'objstore_node_drive_io_waiting', { drive: missing }), 0)
  // One exporter is one MinIO node: the node's drive counts are the cluster's.
  assert.equal(sampleValue(scrape, 'objstore_node_drives'), 4)
  assert.equal(sampleValue(scrape, 'objstore_node_drives_online'), 3)
  assert.equal(sampleValue(scrape, 'objstore_node_drives_offline'), 1)
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives'), 4)
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives_online'), 3)
  assert.equal(sampleValue(scrape, 'objstore_cluster_drives_offline'), 1)
  const rawTotal = sampleValue(scrape, 'objstore_cluster_capacity_raw_total_bytes')
  assert.equal(rawTotal, 3 * expected.totalBytes)
  // 4 drives with 1 parity: 3/4 of raw is usable.
  assert.equal(
    sampleValue(scrape, 'objstore_cluster_capacity_usable_total_bytes'),
    Math.floor(rawTotal * 0.75),
  )
  const warnings = exporter.logs.lines.filter((line) => line.msg === 'drive offline')
  assert.equal(warnings.length, 1)
  assert.equal(warnings[0]?.drive, missing)
  assert.equal(warnings[0]?.reason, 'statfs failed: ENOENT')
  // A second scrape does not log the same offline drive again.
  await exporter.scrape()
  assert.equal(exporter.logs.lines.filter((line) => line.msg === 'drive offline').length, 1)
})

test('a stuck drive is offline while the others answer, and the scrape does not wait for it', async (t) => {
  const stuck = join(root, 'disk2')
  let stuckCalls = 0
  // Simulates a dead network mount at one path: its statfs never returns.
  const statfsWithDeadMount = (path: string): Promise<StatsFs> => {
    if (path === stuck) {
      stuckCalls++
      return new Promise(() => {})
    }
    return statfs(path)
  }
  const exporter = await startExporter(
    { DRIVES: `${join(root, 'disk1')},${stuck}`, DRIVE_TIMEOUT_MS: '100' },
    { statfs: statfsWithDeadMount },
  )
  t.after(() => exporter.close())
  for (let scrapeNumber = 0; scrapeNumber < 3; scrapeNumber++) {
    const scrape = await exporter.scrape()
    assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive: stuck }), 0)
    assert.equal(sampleValue(scrape, 'objstore_node_drive_online', { drive: join(root, 'disk1') }), 1)
    assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'drives' }), 1)
    // MinIO's timeout counter counts each probe that gave up; its one call is still waiting.
    assert.equal(
      sampleValue(scrape, 'objstore_node_drive_timeout_errors_total', { drive: stuck }),
      scrapeNumber + 1,
    )
    assert.equal(sampleValue(scrape, 'objstore_node_drive_io_waiting', { drive: stuck }), 1)
    assert.equal(sampleValue(scrape, 'objstore_node_drive_io_waiting', { drive: join(root, 'disk1') }), 0)
  }
  assert.equal(stuckCalls, 1, 'the hung drive is asked once, not once per scrape')
  const reasons = exporter.logs.lines
    .filter((line) => line.msg === 'drive offline')
    .map((line) => line.reason)
  assert.equal(reasons[0], 'statfs did not return within 100 ms')
  assert.match(String(reasons[1]), /^statfs pending since /)
  assert.equal(reasons.length, 2, 'logged when the reason changes, not on every scrape')
})
