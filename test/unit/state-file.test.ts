import assert from 'node:assert/strict'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { freezeSnapshot, type UsageSnapshot } from '../../src/scanner/snapshot.js'
import { loadState, saveState } from '../../src/scanner/state-file.js'
import { UsageAccumulator } from '../../src/scanner/usage-fold.js'
import { scratchFolder } from '../support/scratch.js'

function sampleSnapshot(): UsageSnapshot {
  const fold = new UsageAccumulator({ storageClasses: true })
  fold.add(2048, 1_700_000_000_000, 'STANDARD_IA')
  fold.add(10, 1_700_000_100_000)
  return freezeSnapshot({
    sourceName: 's3',
    sourceId: 's3:http://127.0.0.1:9000',
    sourceUp: true,
    completedAtMs: 1_700_000_200_000,
    buckets: [
      {
        name: 'photos',
        usage: { ...fold.finish(), multipart: { incomplete: 2, oldestInitiatedSeconds: 1_690_000_000 } },
        scanSuccess: true,
        scanDurationSeconds: 0.25,
        lastSuccessSeconds: 1_700_000_200,
      },
      { name: 'denied', scanSuccess: false, scanDurationSeconds: 0.01 },
    ],
  })
}

test('a saved snapshot loads back equal, and no temporary file is left behind', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  await saveState(path, snapshot)
  assert.deepEqual(await readdir(folder), ['state.json'])
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  assert.deepEqual(loaded.status === 'loaded' ? loaded.snapshot : undefined, snapshot)
})

test('a missing file is absent, not an error', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  assert.deepEqual(await loadState(join(folder, 'none.json'), 'fs:/data'), { status: 'absent' })
})

test('corrupt, foreign and mismatched files are ignored with a reason', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const good = await readFile(path, 'utf8')

  const cases: Array<[string, string, RegExp]> = [
    ['truncated', good.slice(0, good.length / 2), /not valid JSON/],
    ['empty', '', /not valid JSON/],
    [
      'another program',
      JSON.stringify({ name: 'objstore-exporter', version: '0.1.0' }),
      /not a usage snapshot/,
    ],
    ['another format version', good.replace('"version":1', '"version":99'), /not a usage snapshot/],
    [
      'histogram bounds that changed',
      good.replace(/"sizeHistogram":\[[^\]]*\]/, '"sizeHistogram":[1,1]'),
      /not a usage snapshot .*sizeHistogram/,
    ],
    ['negative bytes', good.replace('"bytes":2058', '"bytes":-5'), /not a usage snapshot .*bytes/],
  ]
  for (const [what, text, reason] of cases) {
    await writeFile(path, text)
    const loaded = await loadState(path, snapshot.sourceId)
    assert.equal(loaded.status, 'ignored', what)
    assert.match(loaded.status === 'ignored' ? loaded.reason : '', reason, what)
  }

  await writeFile(path, good)
  const foreign = await loadState(path, 's3:http://other:9000')
  assert.equal(foreign.status, 'ignored')
  assert.match(
    foreign.status === 'ignored' ? foreign.reason : '',
    /written for another source \(s3:http:\/\/127.0.0.1:9000\)/,
  )
})
