import assert from 'node:assert/strict'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { saveState } from '../../src/snapshot/state-file.js'
import { startExporter } from '../support/exporter.js'
import { findSamples, sampleValue } from '../support/exposition.js'
import { scratchFolder } from '../support/scratch.js'

/**
 * node_drive_unaccounted_bytes (issue 14): statfs's used bytes minus DATA_DIR's buckets and its
 * files outside them, on a generated tree. Other processes write to the same filesystem while the
 * test runs, so the figure is checked against the used bytes of the same scrape (one statfs), and
 * the bytes outside buckets against what the test wrote.
 */

async function write(root: string, files: Readonly<Record<string, number>>): Promise<number> {
  let total = 0
  for (const [path, size] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), Buffer.alloc(size))
    total += size
  }
  return total
}

test('fs: used bytes minus buckets and hidden folders, from one statfs and the snapshot', async (t) => {
  const folder = await scratchFolder(t, 'objstore-reconcile-')
  const data = join(folder, 'data')
  const inBuckets = await write(data, {
    'alpha/a': 123_456,
    'alpha/deep/b': 7_000,
    'bravo/c': 1_048_576,
  })
  const outside = await write(data, {
    '.minio.sys/config/config.json': 4_321,
    '.minio.sys/tmp/part.1': 65_536,
    '.trash/old': 999,
    'lost+found/#1234': 512,
    'README.top': 10,
  })
  // Neither a bucket's nor outside: a link is not a file.
  await symlink(join(data, 'bravo/c'), join(data, 'link-at-top'))

  const exporter = await startExporter({ DATA_DIR: data })
  t.after(() => exporter.close())
  assert.equal(exporter.exporter.scanner.snapshot?.outsideBucketsBytes, outside)
  const scrape = await exporter.scrape()
  const drive = { drive: data }
  const used = sampleValue(scrape, 'objstore_node_drive_used_bytes', drive)
  assert.equal(sampleValue(scrape, 'objstore_cluster_usage_total_bytes'), inBuckets)
  assert.equal(
    sampleValue(scrape, 'objstore_node_drive_unaccounted_bytes', drive),
    used - inBuckets - outside,
  )

  // A bucket written after the scan is unaccounted until the next one.
  const later = await write(data, { 'charlie/new': 2_000_000 })
  await exporter.exporter.scanner.scanNow()
  const again = await exporter.scrape()
  assert.equal(
    sampleValue(again, 'objstore_node_drive_unaccounted_bytes', drive),
    sampleValue(again, 'objstore_node_drive_used_bytes', drive) - inBuckets - outside - later,
  )
})

test('fs: no unaccounted figure when buckets are left out, for other drives, or before a scan measured it', async (t) => {
  const folder = await scratchFolder(t, 'objstore-reconcile-off-')
  const data = join(folder, 'data')
  await write(data, { 'alpha/a': 10, 'beta/b': 20, '.minio.sys/x': 5 })
  const other = join(folder, 'other-drive')
  await mkdir(other)

  const selected = await startExporter({ DATA_DIR: data, BUCKETS_EXCLUDE: 'beta' })
  t.after(() => selected.close())
  const excluded = await selected.scrape()
  assert.equal(findSamples(excluded, 'objstore_node_drive_unaccounted_bytes').length, 0, 'beta would count')
  await selected.close()

  const drives = await startExporter({ DATA_DIR: data, DRIVES: `${other},${data}` })
  t.after(() => drives.close())
  const both = await drives.scrape()
  assert.deepEqual(
    findSamples(both, 'objstore_node_drive_unaccounted_bytes').map((sample) => sample.labels.drive),
    [data],
  )
  await drives.close()

  // A state file written by an older version has no outside figure: none until the first scan.
  const stateFile = join(folder, 'state.json')
  await saveState(stateFile, {
    sourceName: 'fs',
    sourceId: `fs:${data}`,
    sourceUp: true,
    completedAtMs: Date.now(),
    buckets: [{ name: 'alpha', usage: { bytes: 10, objects: 1 }, scanSuccess: true, scanDurationSeconds: 0 }],
  })
  const restored = await startExporter({
    DATA_DIR: data,
    STATE_FILE: stateFile,
    SCAN_INTERVAL_SECONDS: '3600',
  })
  t.after(() => restored.close())
  assert.equal(findSamples(await restored.scrape(), 'objstore_node_drive_unaccounted_bytes').length, 0)
  await restored.exporter.scanner.scanNow()
  assert.equal(findSamples(await restored.scrape(), 'objstore_node_drive_unaccounted_bytes').length, 1)
})
