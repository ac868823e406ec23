import assert from 'node:assert/strict'
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { UsageAccumulator } from '../../src/record/bucket-usage.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { loadState, removeStaleTemporaries, saveState } from '../../src/snapshot/state-file.js'
import type { BucketUsage } from '../../src/sources/types.js'
import { deepFreeze } from '../support/deep-freeze.js'
import { scratchFolder } from '../support/scratch.js'
import {
  legacyStateText,
  loadWithFigures,
  readStateDocument,
  stateLines,
  withFigures,
  writeStateDocument,
} from '../support/state-file.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

function sampleSnapshot(): UsageSnapshot {
  const fold = new UsageAccumulator({ storageClasses: true, nowMs: 1_700_000_200_000 })
  fold.add({ size: 2048, modifiedMs: 1_700_000_000_000, storageClass: 'STANDARD_IA' })
  fold.add({ size: 10, modifiedMs: 1_700_000_100_000 })
  return deepFreeze({
    sourceName: 's3',
    sourceId: 's3:http://127.0.0.1:9000',
    sourceUp: true,
    completedAtMs: 1_700_000_200_000,
    buckets: [
      { name: 'denied', scanSuccess: false, scanDurationSeconds: 0.01 },
      {
        name: 'photos',
        usage: { ...fold.finish(), multipart: { incomplete: 2, oldestInitiatedSeconds: 1_690_000_000 } },
        scanSuccess: true,
        scanDurationSeconds: 0.25,
        lastSuccessSeconds: 1_700_000_200,
      },
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
  assert.deepEqual(withFigures(loaded.status === 'loaded' ? loaded.snapshot : undefined), snapshot)
  assert.deepEqual(loaded.status === 'loaded' ? loaded.refused : undefined, [])
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

  const document = await readStateDocument(path)
  const cases: Array<[string, string, RegExp]> = [
    ['cut in a record', good.slice(0, good.length - 40), /^line 3 is not valid JSON/],
    [
      'cut at the end of a line',
      good.slice(0, good.lastIndexOf('\n', good.length - 2) + 1),
      /^cut short: no end line after 2 records/,
    ],
    [
      'an end line that counts more',
      stateLines(document, 3),
      /^cut short: the end line counts 3 records, the file holds 2$/,
    ],
    ['a line after the end line', `${good}{}\n`, /^line 5 follows the end line$/],
    ['a line that is not JSON', good.replace('\n', '\n{"name":\n'), /^line 2 is not valid JSON/],
    ['empty', '', /^not a usage snapshot of format objstore-exporter\/usage-snapshot v3 \(an empty file\)$/],
    [
      'another program',
      JSON.stringify({ name: 'objstore-exporter', version: '0.1.0' }),
      /not a usage snapshot/,
    ],
    ['another format version', good.replace('"version":3', '"version":99'), /not a usage snapshot/],
    ['version 1, cut short', legacyStateText(document).slice(0, 200), /^not valid JSON/],
    [
      'a completion time of 1e300',
      good.replace('"completedAtMs":1700000200000', '"completedAtMs":1e300'),
      /^completedAtMs 1e\+300 is not a time between 2000-01-01T00:00:00.000Z and now$/,
    ],
    [
      'a completion time in year 9999',
      good.replace('"completedAtMs":1700000200000', '"completedAtMs":253402300799000'),
      /^completedAtMs 253402300799000 is not a time/,
    ],
    [
      'a completion time in 1990',
      good.replace('"completedAtMs":1700000200000', '"completedAtMs":631152000000'),
      /^completedAtMs 631152000000 is not a time/,
    ],
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

test('records out of range or found twice are refused one by one, with what was wrong; the rest load', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const good = await readStateDocument(path)
  const photos = good.snapshot.buckets[1]
  /** A record as the file holds it, open to any change a hand edit could make. */
  type Editable = {
    name: string
    scanDurationSeconds: unknown
    lastSuccessSeconds?: number
    usage: { bytes: number; objects: number; sizeHistogram: number[] }
  }
  const variant = (name: string, change: (record: Editable) => void) => {
    const record = structuredClone(photos) as Editable
    record.name = name
    change(record)
    return record
  }
  good.snapshot.buckets.push(
    variant('huge', (record) => (record.usage.bytes = 1e300)),
    variant('negative', (record) => (record.usage.objects = -1)),
    variant('infinite', (record) => (record.scanDurationSeconds = 'INFINITE')),
    variant('bounds', (record) => (record.usage.sizeHistogram = [1, 1])),
    variant('twice', () => undefined),
    variant('twice', (record) => (record.scanDurationSeconds = 9)),
    variant('future', (record) => (record.lastSuccessSeconds = 253402300799)),
    variant('ancient', (record) => (record.lastSuccessSeconds = 86_400)),
    variant('histogram', (record) => (record.usage.sizeHistogram[3] = 0.5)),
    // Map keys outside their pattern: refused, not passed with the value unchecked.
    variant('class-key', (record) => Object.assign(record.usage, { storageClassBytes: { 'A\nB': 'lots' } })),
    variant('tag-key', (record) => Object.assign(record.usage, { settings: { tags: { 'a b': { x: 1 } } } })),
    variant('log-key', (record) =>
      Object.assign(record.usage, { usageLog: { totals: { 'PUT OBJ': 'x' }, recent: [] } }),
    ),
    variant('classes', (record) =>
      Object.assign(record.usage, {
        storageClassBytes: Object.fromEntries(Array.from({ length: 66 }, (_, index) => [`C${index}`, 1])),
      }),
    ),
  )
  const text = stateLines(good).replace('"INFINITE"', '1e400')
  await writeFile(path, text)
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  if (loaded.status !== 'loaded') return
  assert.deepEqual(
    loaded.snapshot.buckets.map((record) => record.name),
    ['denied', 'photos'],
  )
  const reasons = Object.fromEntries(loaded.refused.map(({ bucket, reason }) => [bucket, reason]))
  assert.deepEqual(Object.keys(reasons).sort(), [
    'ancient',
    'bounds',
    'class-key',
    'classes',
    'future',
    'histogram',
    'huge',
    'infinite',
    'log-key',
    'negative',
    'tag-key',
    'twice',
  ])
  assert.match(
    String(reasons.huge),
    /\/usage\/bytes = 1e\+300: Expected integer to be less or equal to 9007199254740991/,
  )
  assert.match(
    String(reasons.negative),
    /\/usage\/objects = -1: Expected integer to be greater or equal to 0/,
  )
  assert.match(String(reasons.infinite), /\/scanDurationSeconds = Infinity: Expected number/)
  assert.match(String(reasons.bounds), /\/usage\/sizeHistogram = \[1,1\]: Expected array length/)
  assert.match(String(reasons.future), /\/lastSuccessSeconds = 253402300799: not a time between 2000 and now/)
  assert.match(String(reasons.ancient), /\/lastSuccessSeconds = 86400: not a time between 2000 and now/)
  assert.match(String(reasons.histogram), /\/usage\/sizeHistogram\/3 = 0\.5: Expected integer/)
  assert.equal(reasons.twice, '2 records for the same bucket')
  assert.match(String(reasons['class-key']), /\/usage\/storageClassBytes/)
  assert.match(String(reasons['tag-key']), /\/usage\/settings\/tags/)
  assert.match(String(reasons['log-key']), /\/usage\/usageLog\/totals/)
  assert.match(
    String(reasons.classes),
    /\/usage\/storageClassBytes = .*: Expected object to have no more than 65 properties/,
  )
})

test('the writer leaves out records the loader would refuse: no NaN, Infinity or negative figure on disk', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  const photos = snapshot.buckets[1] as BucketRecord
  const usage = photos.usage as BucketUsage
  const bad = (name: string, change: Partial<BucketUsage>): BucketRecord => ({
    ...photos,
    name,
    usage: { ...usage, ...change },
  })
  const written = await saveState(path, {
    ...snapshot,
    buckets: [
      ...snapshot.buckets,
      bad('not-a-number', { bytes: Number.NaN }),
      bad('infinite', { bytes: Number.POSITIVE_INFINITY }),
      bad('negative', { objects: -3 }),
    ],
  })
  assert.deepEqual(
    written.refused.named.map((record) => record.bucket),
    ['not-a-number', 'infinite', 'negative'],
  )
  const text = await readFile(path, 'utf8')
  assert.doesNotMatch(text, /null|NaN|Infinity|-3/)
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  assert.deepEqual(loaded.status === 'loaded' ? loadWithFigures(loaded) : undefined, {
    status: 'loaded',
    snapshot,
    refused: [],
    refusedCount: 0,
  })
})

test('temporary files that killed writes left are removed at start: ours only, by name', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const stale = ['.state.json.0123456789ab.tmp', '.fedcba987654.usage-state.tmp']
  const others = ['.other.json.0123456789ab.tmp', '.state.json.notours.tmp', 'notes.txt', 'state.json']
  for (const name of [...stale, ...others]) await writeFile(join(folder, name), Buffer.alloc(1000))
  assert.deepEqual(await removeStaleTemporaries(path), { files: 2, bytes: 2000 })
  assert.deepEqual((await readdir(folder)).sort(), others.sort())
  assert.deepEqual(await removeStaleTemporaries(join(folder, 'missing', 'state.json')), {
    files: 0,
    bytes: 0,
  })
})

test('a symlinked STATE_FILE: the target is replaced in its own folder and the link stays a link', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  await mkdir(join(folder, 'volume'))
  await mkdir(join(folder, 'config'))
  const target = join(folder, 'volume', 'usage.json')
  const link = join(folder, 'config', 'state.json')
  // Relative, as `ln -s ../volume/usage.json` makes it; dangling until the first write.
  await symlink('../volume/usage.json', link)
  const snapshot = sampleSnapshot()
  await saveState(link, snapshot)
  await saveState(link, snapshot)
  assert.equal(await readlink(link), '../volume/usage.json')
  assert.ok((await lstat(target)).isFile())
  assert.deepEqual(await readdir(join(folder, 'volume')), ['usage.json'])
  assert.deepEqual(await readdir(join(folder, 'config')), ['state.json'])
  assert.deepEqual(loadWithFigures(await loadState(link, snapshot.sourceId)), {
    status: 'loaded',
    snapshot,
    refused: [],
    refusedCount: 0,
  })
})

test('a failed write says the same thing each time for the same cause (no random name in it)', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  await writeFile(join(folder, 'file'), 'a file where a folder should be')
  const path = join(folder, 'file', 'state.json')
  const failures: string[] = []
  for (let attempt = 0; attempt < 2; attempt++)
    await saveState(path, sampleSnapshot()).catch((error: Error) => failures.push(error.message))
  assert.equal(failures.length, 2)
  assert.equal(failures[0], failures[1])
  assert.match(String(failures[0]), /ENOTDIR: not a directory$/)
})

test('the per-user part and usage log counters are stored; files without them load; a bad per-user part costs only itself', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const base = sampleSnapshot()
  const put = { ops: 3, successfulOps: 3, bytesSent: 0, bytesReceived: 1300 }
  const [denied, photos] = base.buckets as [BucketRecord, BucketRecord]
  const snapshot = deepFreeze({
    ...base,
    buckets: [
      denied,
      {
        ...photos,
        usage: {
          ...(photos.usage as BucketUsage),
          usageLog: {
            totals: { put_obj: put },
            recent: [{ epoch: 1_700_000_000 - 800, categories: { put_obj: put } }],
          },
        },
      },
    ],
    users: {
      users: [
        { uid: 'alice', tenant: '', bytes: 1300, objects: 2, quotaMaxBytes: 1000448, quotaMaxObjects: 50 },
        { uid: 'bob', tenant: 'acme', bytes: 777, objects: 1 },
      ],
      omitted: 0,
    },
  })
  await saveState(path, snapshot)
  const loaded = await loadState(path, snapshot.sourceId)
  assert.deepEqual(withFigures(loaded.status === 'loaded' ? loaded.snapshot : undefined), snapshot)

  // Written before the per-user part existed: loads, without one.
  // (Such files were of format version 1, which still loads.)
  const older = await readStateDocument(path)
  delete older.snapshot.users
  await writeFile(path, legacyStateText(older))
  const fromOlder = await loadState(path, snapshot.sourceId)
  assert.equal(fromOlder.status, 'loaded')
  assert.equal(fromOlder.status === 'loaded' && 'users' in fromOlder.snapshot, false)
  assert.equal(fromOlder.status === 'loaded' ? fromOlder.snapshot.buckets.length : 0, 2)

  // A per-user part that is not one: left out with the reason, the buckets still load.
  older.snapshot.users = { users: [{ uid: 'x', tenant: '', bytes: -1, objects: 0 }], omitted: 0 }
  await writeStateDocument(path, older)
  const bad = await loadState(path, snapshot.sourceId)
  assert.equal(bad.status, 'loaded')
  if (bad.status !== 'loaded') return
  assert.equal('users' in bad.snapshot, false)
  assert.match(String(bad.usersRefused), /bytes/)
  assert.equal(bad.snapshot.buckets.length, 2)
})

test('format 3 is a header, a record a line and an end line; formats 2 and 1 still load to the same snapshot', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const lines = (await readFile(path, 'utf8')).split('\n')
  assert.deepEqual(JSON.parse(lines[0] ?? '').version, 3)
  assert.deepEqual(
    lines.slice(1, 3).map((line) => JSON.parse(line).name),
    ['denied', 'photos'],
  )
  assert.deepEqual(lines.slice(3), ['{"end":true,"records":2}', ''])

  // Version 2 (before per-range subtotals): the same lines under the older header.
  const version2 = [JSON.stringify({ ...JSON.parse(lines[0] ?? ''), version: 2 }), ...lines.slice(1)].join(
    '\n',
  )
  await writeFile(path, version2)
  assert.deepEqual(loadWithFigures(await loadState(path, snapshot.sourceId)), {
    status: 'loaded',
    snapshot,
    refused: [],
    refusedCount: 0,
  })

  await writeFile(path, legacyStateText(await readStateDocument(path)))
  const legacy = await loadState(path, snapshot.sourceId)
  assert.deepEqual(loadWithFigures(legacy), { status: 'loaded', snapshot, refused: [], refusedCount: 0 })
})

test('a file past its bounds is ignored with the bound it passed, not read whole', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const good = await readFile(path, 'utf8')
  const limits = { lineBytes: 4096, records: 2, fileBytes: 1_000_000 }
  assert.equal((await loadState(path, snapshot.sourceId, undefined, limits)).status, 'loaded')

  const reasons = async (text: string) => {
    await writeFile(path, text)
    const loaded = await loadState(path, snapshot.sourceId, undefined, limits)
    return loaded.status === 'ignored' ? loaded.reason : loaded.status
  }
  const document = await readStateDocument(path)
  const huge = { ...document.snapshot.buckets[1], name: 'huge', note: 'x'.repeat(5000) }
  assert.equal(
    await reasons(stateLines({ ...document, snapshot: { ...document.snapshot, buckets: [huge] } })),
    'a line is longer than 4096 bytes',
  )
  // A line without its end, longer than the bound: refused once the bound is passed.
  assert.equal(
    await reasons(`${good.split('\n')[0]}\n${'x'.repeat(600_000)}`),
    'a line is longer than 4096 bytes',
  )
  const third = { ...document.snapshot.buckets[1], name: 'third' }
  assert.equal(
    await reasons(
      stateLines({
        ...document,
        snapshot: { ...document.snapshot, buckets: [...document.snapshot.buckets, third] },
      }),
    ),
    'more than 2 bucket records',
  )
  assert.equal(
    await reasons(`${good}${' '.repeat(1_000_000)}`),
    `larger than 1000000 bytes (${good.length + 1_000_000})`,
  )
})

test('a file of many read chunks loads whole: lines and UTF-8 characters cut at a chunk end', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  // Names of 1-, 2-, 3- and 4-byte characters, so chunk ends fall inside characters too.
  const names = Array.from(
    { length: 3000 },
    (_, index) => `b-${String(index).padStart(4, '0')}-é€😀${'ü'.repeat(index % 7)}`,
  )
  const { snapshot } = generateSnapshot({
    buckets: names,
    objectsPerBucket: 6,
    sourceId: 's3:http://127.0.0.1:9000',
    completedAtMs: Date.now(),
  })
  await saveState(path, snapshot)
  assert.ok((await readFile(path)).length > 3 * 2 ** 20, 'more than three chunks of a MiB')
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  if (loaded.status !== 'loaded') return
  assert.deepEqual(withFigures(loaded.snapshot), snapshot)
  assert.deepEqual(loaded.refused, [])
})

test('a line across chunks is read whole under its bound and refused past it', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const document = await readStateDocument(path)
  const limits = { lineBytes: 3 * 2 ** 20, records: 10, fileBytes: 2 ** 30 }
  const withNote = async (bytes: number) => {
    const long = { ...document.snapshot.buckets[1], name: 'long', note: 'é'.repeat(bytes / 2) }
    const [denied, photos] = document.snapshot.buckets as Record<string, unknown>[]
    const buckets = [denied, long, photos] as Record<string, unknown>[]
    await writeFile(path, stateLines({ ...document, snapshot: { ...document.snapshot, buckets } }))
    return loadState(path, snapshot.sourceId, undefined, limits)
  }
  // Some 2.5 MiB: three chunks, under the bound.
  const under = await withNote(2.5 * 2 ** 20)
  assert.equal(under.status, 'loaded')
  assert.deepEqual(under.status === 'loaded' ? under.snapshot.buckets.map((record) => record.name) : [], [
    'denied',
    'long',
    'photos',
  ])
  // Some 3.5 MiB: past the bound, though no chunk alone is.
  assert.deepEqual(await withNote(3.5 * 2 ** 20), {
    status: 'ignored',
    reason: `a line is longer than ${3 * 2 ** 20} bytes`,
  })
})

test('records within bounds but impossible for a fold are refused, each saying what cannot be', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const file = await readStateDocument(path)
  const photos = file.snapshot.buckets[1] as { usage: Record<string, unknown> }
  const variant = (name: string, usage: Record<string, unknown>) => ({
    ...structuredClone(photos),
    name,
    usage: { ...structuredClone(photos.usage), ...usage },
  })
  const histogram = (photos.usage.sizeHistogram as number[]).map(() => 0)
  file.snapshot.buckets.push(
    // 0 objects of 1 PB, with nothing else to contradict it.
    { name: 'empty-petabyte', usage: { bytes: 1e15, objects: 0 }, scanSuccess: true, scanDurationSeconds: 1 },
    variant('largest-of-41', { bytes: 41, objects: 2, largestObjectBytes: 1e12 }),
    variant('time-backwards', { newestModifiedSeconds: 1_600_000_000, oldestModifiedSeconds: 1_700_000_000 }),
    variant('histogram-short', { sizeHistogram: histogram }),
    variant('classes-short', { storageClassBytes: { STANDARD: 1 } }),
  )
  await writeStateDocument(path, file)
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  if (loaded.status !== 'loaded') return
  assert.deepEqual(
    loaded.snapshot.buckets.map((record) => record.name),
    ['denied', 'photos'],
  )
  assert.equal(loaded.refusedCount, 5)
  const reasons = Object.fromEntries(loaded.refused.map(({ bucket, reason }) => [bucket, reason]))
  assert.match(String(reasons['empty-petabyte']), /\/usage: 0 objects cannot hold 1000000000000000 bytes/)
  assert.match(
    String(reasons['largest-of-41']),
    /\/usage: the largest object \(1000000000000 bytes\) is larger than the bucket \(41\)/,
  )
  assert.match(String(reasons['time-backwards']), /the newest object \(1600000000\) is older than the oldest/)
  assert.match(String(reasons['histogram-short']), /\/usage\/sizeHistogram adds up to 0, not objects 2/)
  assert.match(String(reasons['classes-short']), /\/usage\/storageClassBytes adds up to 1, not bytes 2058/)
  // The writer keeps to the same rules: what it writes, the loader takes.
  const written = await saveState(path, loaded.snapshot)
  assert.equal(written.refused.count, 0)
})

test('a million refused lines cost a count and the first hundred reasons, not a reason each', async (t) => {
  const folder = await scratchFolder(t, 'objstore-state-')
  const path = join(folder, 'state.json')
  const snapshot = sampleSnapshot()
  await saveState(path, snapshot)
  const [header] = (await readFile(path, 'utf8')).split('\n')
  const lines = 999_000
  await writeFile(
    path,
    `${header}\n${'{}\n'.repeat(lines)}${JSON.stringify({ end: true, records: lines })}\n`,
  )
  const loaded = await loadState(path, snapshot.sourceId)
  assert.equal(loaded.status, 'loaded')
  if (loaded.status !== 'loaded') return
  assert.equal(loaded.refusedCount, lines)
  assert.equal(loaded.refused.length, 100)
  assert.deepEqual(loaded.refused[0], {
    bucket: 'line 2',
    reason: 'not a valid bucket record (/name = undefined: Expected required property)',
  })
})
