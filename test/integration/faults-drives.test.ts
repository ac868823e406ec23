import assert from 'node:assert/strict'
import type { StatsFs } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { statfs } from '../../src/collectors/drive-probe.js'
import { startExporter } from '../support/exporter.js'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Drives and the data directory failing under a running exporter. "Unreadable" is made with a
 * path under a regular file (statfs and readdir fail with ENOTDIR): chmod 000 stops nobody when
 * the tests run as root (CI), and a path under a file fails the same way for every user.
 */

const online = (scrape: ParsedExposition, drive: string) =>
  sampleValue(scrape, 'objstore_node_drive_online', { drive })

async function writeBucket(data: string): Promise<void> {
  await mkdir(join(data, 'alpha', 'sub'), { recursive: true })
  await writeFile(join(data, 'alpha', 'one'), Buffer.alloc(1_000))
  await writeFile(join(data, 'alpha', 'sub', 'two'), Buffer.alloc(234))
}

test('drive paths that vanish or fail with ENOTDIR mid-run, and DATA_DIR vanishing: flagged, served on, recovered', async (t) => {
  const root = await scratchFolder(t, 'objstore-faults-drives-')
  const [disk1, parent, disk3, data] = ['disk1', 'parent', 'disk3', 'data'].map((name) =>
    join(root, name),
  ) as [string, string, string, string]
  const disk2 = join(parent, 'disk2')
  for (const dir of [disk1, disk2, disk3]) await mkdir(dir, { recursive: true })
  await writeBucket(data)
  const exporter = await startServingProcess(
    t,
    {
      DRIVES: `${disk1},${disk2},${disk3}`,
      DATA_DIR: data,
      SCAN_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'debug',
    },
    root,
  )
  const scans = () => exporter.logs().filter((line) => line.msg === 'usage scan finished').length
  await exporter.waitForLogs('a first scan', (line) => line.msg === 'usage scan finished')
  const good = await exporter.scrape()
  for (const drive of [disk1, disk2, disk3]) assert.equal(online(good, drive), 1)
  assert.equal(sampleValue(good, 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }), 1_234)

  await rm(disk1, { recursive: true })
  await rm(parent, { recursive: true })
  await writeFile(parent, 'a file where a folder was')
  await rm(data, { recursive: true })
  const failedFrom = scans() + 1
  await exporter.waitForLogs(
    'scans without DATA_DIR',
    (line) => line.msg === 'usage scan finished' && line.sourceUp === false,
    2,
  )
  assert.ok(scans() > failedFrom)
  const failing = await exporter.scrape()
  assert.equal(online(failing, disk1), 0)
  assert.equal(online(failing, disk2), 0)
  assert.equal(online(failing, disk3), 1)
  assert.equal(sampleValue(failing, 'objstore_cluster_drives_online'), 1)
  assert.equal(sampleValue(failing, 'objstore_cluster_drives_offline'), 2)
  assert.equal(sampleValue(failing, 'objstore_scrape_collector_success', { collector: 'drives' }), 1)
  assert.equal(sampleValue(failing, 'objstore_source_up', { source: 'fs' }), 0)
  assert.equal(sampleValue(failing, 'objstore_bucket_scan_success', { bucket: 'alpha' }), 0)
  assert.equal(
    sampleValue(failing, 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }),
    1_234,
    'the last figures are kept',
  )
  const offline = exporter.logs().filter((line) => line.msg === 'drive offline')
  assert.deepEqual(
    offline.map((line) => [line.drive, line.reason]),
    [
      [disk1, 'statfs failed: ENOENT'],
      [disk2, 'statfs failed: ENOTDIR'],
    ],
  )
  const unreachable = exporter.logs().filter((line) => line.msg === 'usage source unreachable')
  assert.equal(unreachable.length, 1)
  assert.match(String(unreachable[0]?.error), /cannot list .*ENOENT/)

  await mkdir(disk1)
  await rm(parent)
  await mkdir(disk2, { recursive: true })
  await writeBucket(data)
  await exporter.waitForLogs('a good scan again', (line) => line.msg === 'usage source reachable again')
  await exporter.waitForLogs(
    'the scan after recovery',
    (line) => line.msg === 'usage scan finished' && line.sourceUp === true,
    2,
  )
  const recovered = await exporter.scrape()
  for (const drive of [disk1, disk2, disk3]) assert.equal(online(recovered, drive), 1, drive)
  assert.equal(sampleValue(recovered, 'objstore_bucket_scan_success', { bucket: 'alpha' }), 1)
  assert.equal(sampleValue(recovered, 'objstore_bucket_usage_total_bytes', { bucket: 'alpha' }), 1_234)
  assert.deepEqual(
    exporter
      .logs()
      .filter((line) => line.msg === 'drive online')
      .map((line) => line.drive)
      .sort(),
    [disk1, disk2].sort(),
  )
  await assertCleanExit(exporter)
})

test('a drive that hangs mid-run (simulated statfs) is offline, holds no scrape, and is online again once its call returns', async (t) => {
  const root = await scratchFolder(t, 'objstore-faults-hang-')
  const steady = join(root, 'steady')
  const flaky = join(root, 'flaky')
  for (const dir of [steady, flaky]) await mkdir(dir)
  let hanging = false
  let hungCalls = 0
  let release: () => void = () => undefined
  // From the moment `hanging` is set, statfs on `flaky` does not return until the test releases it,
  // as on a dead network mount that comes back.
  const statfsThatHangs = (path: string): Promise<StatsFs> => {
    if (path !== flaky || !hanging) return statfs(path)
    hungCalls++
    return new Promise((resolve, reject) => {
      release = () => statfs(path).then(resolve, reject)
    })
  }
  const exporter = await startExporter(
    { DRIVES: `${steady},${flaky}`, DRIVE_TIMEOUT_MS: '100' },
    { statfs: statfsThatHangs },
  )
  t.after(() => exporter.close())
  assert.equal(online(await exporter.scrape(), flaky), 1)

  hanging = true
  for (let scrape = 0; scrape < 5; scrape++) {
    const during = await exporter.scrape()
    assert.equal(online(during, flaky), 0)
    assert.equal(online(during, steady), 1)
    assert.equal(sampleValue(during, 'objstore_scrape_collector_success', { collector: 'drives' }), 1)
  }
  assert.equal(hungCalls, 1, 'the hung drive is asked once, not once per scrape')

  hanging = false
  release()
  // The hung call returns; a scrape after that asks again and finds the drive.
  await waitFor('the drive back online', async () => online(await exporter.scrape(), flaky) === 1)
  const reasons = exporter.logs.lines
    .filter((line) => line.msg === 'drive offline' || line.msg === 'drive online')
    .map((line) => `${line.msg}: ${line.reason ?? ''}`)
  assert.equal(reasons[0], 'drive offline: statfs did not return within 100 ms')
  assert.match(String(reasons[1]), /^drive offline: statfs pending since /)
  assert.equal(reasons[2], 'drive online: ')
  assert.equal(reasons.length, 3)
})

test('50 concurrent scrapes of 20 healthy drives: every answer online (a pending statfs is shared, not offline)', async (t) => {
  const root = await scratchFolder(t, 'objstore-faults-concurrent-')
  const drives = Array.from({ length: 20 }, (_, index) => join(root, `disk${index + 1}`))
  for (const drive of drives) await mkdir(drive)
  const exporter = await startServingProcess(t, { DRIVES: join(root, 'disk{1...20}') }, root)
  const answers: number[] = []
  for (let round = 0; round < 2; round++) {
    const scrapes = await Promise.all(Array.from({ length: 50 }, () => exporter.scrape()))
    for (const scrape of scrapes) for (const drive of drives) answers.push(online(scrape, drive))
  }
  const offline = answers.filter((value) => value !== 1).length
  assert.equal(offline, 0, `${offline} of ${answers.length} answers offline`)
  assert.deepEqual(
    exporter.logs().filter((line) => line.msg === 'drive offline'),
    [],
    'no drive was ever logged offline',
  )
  await assertCleanExit(exporter)
})
