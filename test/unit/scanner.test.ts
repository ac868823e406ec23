import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import pino from 'pino'
import { parseGlobList } from '../../src/config/bucket-selection.js'
import { createBucketFilter } from '../../src/scanning/bucket-filter.js'
import { UsageScanner, type UsageScannerOptions } from '../../src/scanning/scanner.js'
import type { BucketRecord, UsageSnapshot } from '../../src/snapshot/snapshot.js'
import { loadState, saveState } from '../../src/snapshot/state-file.js'
import { SourceError } from '../../src/sources/types.js'
import { CapturedOutput } from '../support/capture.js'
import { deepFreeze } from '../support/deep-freeze.js'
import { MemorySource, usageOf } from '../support/memory-source.js'
import { scratchFolder } from '../support/scratch.js'
import { withFigures } from '../support/state-file.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The scanner's rules, at unit speed: the real UsageScanner over an in-memory source (a real
 * implementation of the source contract, not a mock of the scanner).
 */

const HOUR_MS = 3_600_000
const KEEP_ALIVE_MS = 30_000

function scannerFor(
  t: { after: (fn: () => Promise<void>) => void },
  source: MemorySource,
  options: Partial<UsageScannerOptions> = {},
): { scanner: UsageScanner; log: CapturedOutput } {
  const log = new CapturedOutput()
  const scanner = new UsageScanner({
    source,
    filter: () => true,
    // Scans run when the test asks (scanNow), never on the schedule.
    intervalMs: HOUR_MS,
    concurrency: 2,
    timeoutMs: HOUR_MS,
    logger: pino({ level: 'debug' }, log),
    ...options,
  })
  // The scanner's timers are unref'd (in the exporter the server holds the process open): this
  // stands in for the server while the test waits on them, bounded so that a failed hook cannot
  // hold the test process open.
  const keepAlive = setTimeout(() => undefined, KEEP_ALIVE_MS)
  // Every published snapshot frozen through: a later round that wrote into the records it merges
  // with (the last good figures of a failing bucket) would throw here.
  scanner.onSnapshot((snapshot) => deepFreeze(snapshot))
  t.after(async () => {
    clearTimeout(keepAlive)
    await scanner.close()
  })
  return { scanner, log }
}

function record(snapshot: UsageSnapshot, name: string): BucketRecord | undefined {
  return snapshot.buckets.find((bucket) => bucket.name === name)
}

function messages(log: CapturedOutput, msg: string): Record<string, unknown>[] {
  return log.jsonLines().filter((line) => line.msg === msg)
}

test('a scan measures every listed bucket, sorted, with the source up', async (t) => {
  const source = new MemorySource()
  source.buckets.set('b', usageOf(20, 2))
  source.buckets.set('a', usageOf(10, 1))
  const { scanner } = scannerFor(t, source)
  const snapshot = await scanner.scanNow()
  assert.equal(snapshot.sourceUp, true)
  assert.equal(snapshot.sourceName, 'memory')
  assert.equal(snapshot.sourceId, 'memory:test')
  assert.deepEqual(
    snapshot.buckets.map((bucket) => [bucket.name, bucket.usage, bucket.scanSuccess]),
    [
      ['a', { bytes: 10, objects: 1 }, true],
      ['b', { bytes: 20, objects: 2 }, true],
    ],
  )
  assert.equal(scanner.snapshot, snapshot)
  assert.equal(source.roundsClosed, 1, 'the round is released after the scan')
})

test('a bucket that fails keeps its last good figures and time, flagged; logged once', async (t) => {
  const source = new MemorySource()
  source.buckets.set('a', usageOf(10, 1))
  source.buckets.set('b', usageOf(20, 2))
  const { scanner, log } = scannerFor(t, source)
  const first = await scanner.scanNow()
  const good = record(first, 'b')
  source.buckets.set('b', new SourceError('b: SlowDown', 'throttled'))
  source.buckets.set('a', usageOf(11, 1))
  const second = await scanner.scanNow()
  const failed = record(second, 'b')
  assert.equal(failed?.scanSuccess, false)
  assert.deepEqual(failed?.usage, good?.usage)
  assert.equal(failed?.lastSuccessSeconds, good?.lastSuccessSeconds)
  assert.deepEqual(record(second, 'a')?.usage, { bytes: 11, objects: 1 }, 'the others are measured anew')
  assert.equal(second.sourceUp, true, 'one bucket measured: the source answered')

  await scanner.scanNow()
  const warnings = messages(log, 'bucket scan failed')
  assert.equal(warnings.length, 1, 'the same failure is logged once')
  assert.deepEqual([warnings[0]?.bucket, warnings[0]?.kind], ['b', 'throttled'])

  source.buckets.set('b', usageOf(21, 2))
  const recovered = await scanner.scanNow()
  assert.equal(record(recovered, 'b')?.scanSuccess, true)
  assert.equal(messages(log, 'bucket scan recovered').length, 1)
})

test('a bucket never measured that fails has a record without figures', async (t) => {
  const source = new MemorySource()
  source.buckets.set('a', new SourceError('a: AccessDenied', 'denied'))
  source.buckets.set('b', usageOf(1, 1))
  const { scanner } = scannerFor(t, source)
  const snapshot = await scanner.scanNow()
  const failed = record(snapshot, 'a')
  assert.equal(failed?.scanSuccess, false)
  assert.equal(failed?.usage, undefined)
  assert.equal(failed?.lastSuccessSeconds, undefined)
})

test('buckets gone are dropped; a missing bucket named in BUCKETS stays, flagged', async (t) => {
  const source = new MemorySource()
  source.buckets.set('a', usageOf(1, 1))
  source.buckets.set('b', usageOf(2, 1))
  source.buckets.set('c', usageOf(3, 1))
  const { scanner } = scannerFor(t, source)
  await scanner.scanNow()
  // 'b' is no longer listed; 'c' is listed but deleted before it is measured.
  source.buckets.delete('b')
  source.buckets.set('c', new SourceError('c: NoSuchBucket', 'missing'))
  const second = await scanner.scanNow()
  assert.deepEqual(
    second.buckets.map((bucket) => bucket.name),
    ['a'],
  )

  const fixed = new MemorySource('memory:fixed')
  fixed.buckets.set('a', usageOf(1, 1))
  const { scanner: named } = scannerFor(t, fixed, { fixedBuckets: ['a', 'gone'] })
  const snapshot = await named.scanNow()
  assert.deepEqual(
    snapshot.buckets.map((bucket) => [bucket.name, bucket.scanSuccess]),
    [
      ['a', true],
      ['gone', false],
    ],
  )
  assert.equal(fixed.measured.includes('gone'), true, 'BUCKETS is measured, not listed')
})

test('source_up: down when it cannot list, or measures none of several; up when empty', async (t) => {
  const source = new MemorySource()
  const { scanner, log } = scannerFor(t, source)
  assert.equal((await scanner.scanNow()).sourceUp, true, 'nothing to measure is not a failure')

  source.buckets.set('a', usageOf(1, 1))
  source.buckets.set('b', usageOf(2, 1))
  const measured = await scanner.scanNow()

  source.down = new SourceError('ListBuckets: ECONNREFUSED', 'unavailable')
  const down = await scanner.scanNow()
  assert.equal(down.sourceUp, false)
  assert.deepEqual(
    down.buckets.map((bucket) => [bucket.name, bucket.usage, bucket.scanSuccess]),
    measured.buckets.map((bucket) => [bucket.name, bucket.usage, false]),
    'every known bucket keeps its figures, flagged',
  )
  assert.deepEqual(
    down.buckets.map((bucket) => bucket.scanDurationSeconds),
    measured.buckets.map((bucket) => bucket.scanDurationSeconds),
    'and its last duration',
  )
  assert.equal(source.roundsClosed, 2, 'no round was opened by the failed listing')

  source.down = undefined
  source.buckets.set('a', new SourceError('a: InternalError', 'unavailable'))
  source.buckets.set('b', new SourceError('b: InternalError', 'unavailable'))
  const none = await scanner.scanNow()
  assert.equal(none.sourceUp, false, 'listed but measured none')

  source.buckets.set('b', usageOf(2, 1))
  assert.equal((await scanner.scanNow()).sourceUp, true, 'one measured is enough')

  const unreachable = messages(log, 'usage source unreachable')
  assert.deepEqual(
    unreachable.map((line) => line.error),
    ['ListBuckets: ECONNREFUSED', 'no bucket could be measured: a: InternalError'],
  )
  assert.equal(messages(log, 'usage source reachable again').length, 1)
})

test('a bucket that takes longer than the timeout fails; the scan goes on', async (t) => {
  const source = new MemorySource()
  source.buckets.set('slow', usageOf(1, 1))
  source.buckets.set('quick', usageOf(2, 1))
  source.hold('slow')
  source.ignoresAbort = true
  const { scanner, log } = scannerFor(t, source, { timeoutMs: 50 })
  const snapshot = await scanner.scanNow()
  assert.equal(record(snapshot, 'slow')?.scanSuccess, false)
  assert.equal(record(snapshot, 'quick')?.scanSuccess, true)
  assert.match(
    String(messages(log, 'bucket scan failed')[0]?.error),
    /^not measured within SCAN_TIMEOUT_SECONDS \(0\.05 s\)$/,
  )
})

test('scanNow joins the scan running rather than starting another', async (t) => {
  const source = new MemorySource()
  source.buckets.set('a', usageOf(1, 1))
  source.hold('a')
  const { scanner } = scannerFor(t, source)
  const first = scanner.scanNow()
  const second = scanner.scanNow()
  assert.equal(first, second)
  await waitFor('the bucket to be measured', () => source.measured.length === 1)
  assert.equal(scanner.scanNow(), first)
  source.release()
  const snapshot = await first
  assert.equal(source.beginScans, 1)
  assert.equal(record(snapshot, 'a')?.scanSuccess, true)
  // Once it has finished, the next call is a new scan.
  await scanner.scanNow()
  assert.equal(source.beginScans, 2)
})

test('close aborts a running scan, waits for it and closes the source', async (t) => {
  const source = new MemorySource()
  source.buckets.set('a', usageOf(1, 1))
  source.buckets.set('b', usageOf(1, 1))
  source.hold('a', 'b')
  const { scanner } = scannerFor(t, source)
  const published: UsageSnapshot[] = []
  scanner.onSnapshot((snapshot) => published.push(snapshot))
  const first = scanner.firstSnapshot()
  const scan = scanner.scanNow()
  await waitFor('both buckets to be measured', () => source.measured.length === 2)
  await scanner.close()
  await assert.rejects(scan, /usage scanner closed/)
  await assert.rejects(first, /usage scanner closed/)
  assert.equal(source.abortReasons.length, 2, 'each bucket saw the abort')
  assert.equal(source.roundsClosed, 1, 'the round was released')
  assert.equal(source.closed, true)
  assert.deepEqual(published, [], 'an aborted scan publishes nothing')
  assert.equal(scanner.snapshot, undefined)
  await assert.rejects(scanner.scanNow(), /usage scanner closed/)
})

test('the state file: loaded at start, filtered by the selection, another source ignored', async (t) => {
  const folder = await scratchFolder(t)
  const stateFile = join(folder, 'state.json')
  const nowSeconds = Math.floor(Date.now() / 1000)
  const stored = (name: string): BucketRecord => ({
    name,
    usage: usageOf(5, 1),
    scanSuccess: true,
    scanDurationSeconds: 0.5,
    lastSuccessSeconds: nowSeconds,
  })
  await saveState(
    stateFile,
    deepFreeze({
      sourceName: 'memory',
      sourceId: 'memory:test',
      sourceUp: true,
      completedAtMs: Date.now(),
      buckets: ['keep-1', 'keep-2', 'other-1', 'skip-1'].map(stored),
    }),
  )

  const source = new MemorySource()
  const { scanner } = scannerFor(t, source, {
    stateFile: { path: stateFile, stallMs: HOUR_MS },
    filter: createBucketFilter({
      include: parseGlobList('keep-*,other-*'),
      exclude: parseGlobList('other-*'),
    }),
    fixedBuckets: ['keep-1', 'skip-1'],
  })
  await scanner.start()
  assert.deepEqual(
    scanner.snapshot?.buckets.map((bucket) => bucket.name),
    ['keep-1'],
    'globs and BUCKETS both apply to what was stored',
  )
  assert.equal(source.beginScans, 0, 'a fresh snapshot is not rescanned at start')

  const foreign = new MemorySource('memory:elsewhere')
  const { scanner: other, log } = scannerFor(t, foreign, { stateFile: { path: stateFile, stallMs: HOUR_MS } })
  await other.start()
  assert.equal(other.snapshot, undefined)
  assert.equal(messages(log, 'state file ignored').length, 1)
  // Closed here, before the folder is removed: the foreign one's first scan is due at once and
  // would write the state file while it goes.
  await other.close()
  await scanner.close()
})

test('each scan is written to the state file, for this source', async (t) => {
  const folder = await scratchFolder(t)
  const stateFile = join(folder, 'state.json')
  const source = new MemorySource()
  source.buckets.set('a', usageOf(7, 3))
  const { scanner } = scannerFor(t, source, { stateFile: { path: stateFile, stallMs: HOUR_MS } })
  const snapshot = await scanner.scanNow()
  const loaded = await loadState(stateFile, source.id)
  assert.equal(loaded.status, 'loaded')
  assert.deepEqual(withFigures(loaded.status === 'loaded' ? loaded.snapshot : undefined), snapshot)
})

test('per-user figures: in the snapshot; kept when they cannot be read, dropped when refused; logged once', async (t) => {
  const source = new MemorySource()
  source.buckets.set('b', usageOf(20, 2))
  const alice = { uid: 'alice', tenant: '', bytes: 20, objects: 2, quotaMaxBytes: 1024 }
  source.users = { users: [alice], omitted: 0 }
  const { scanner, log } = scannerFor(t, source)
  assert.deepEqual((await scanner.scanNow()).users, { users: [alice], omitted: 0 })

  source.users = new SourceError('RGW admin API users: timed out', 'unavailable')
  const kept = await scanner.scanNow()
  await scanner.scanNow()
  assert.deepEqual(
    kept.users,
    { users: [alice], omitted: 0 },
    'the last figures, as a failed bucket keeps its',
  )
  assert.equal(kept.sourceUp, true, 'the buckets do not wait on the users')
  assert.equal(messages(log, 'user figures not read').length, 1)

  source.users = new SourceError('RGW admin API users: answered 403 AccessDenied (users=read)', 'denied')
  const refused = await scanner.scanNow()
  assert.equal(refused.users, undefined)
  assert.equal(messages(log, 'user figures not read').length, 2)
  assert.equal(record(refused, 'b')?.usage?.bytes, 20)

  source.users = { users: [], omitted: 3 }
  assert.deepEqual((await scanner.scanNow()).users, { users: [], omitted: 3 })
  assert.equal(messages(log, 'user figures read again').length, 1)

  // A source down keeps them too (the buckets keep theirs).
  source.down = new SourceError('connection refused', 'unavailable')
  assert.deepEqual((await scanner.scanNow()).users, { users: [], omitted: 3 })
})

/** A scanner over one bucket whose first round (at start, nothing loaded) has ended. */
async function scannedOnce(t: { after: (fn: () => Promise<void>) => void }) {
  const source = new MemorySource()
  source.buckets.set('photos', usageOf(10, 1))
  const { scanner } = scannerFor(t, source)
  await scanner.start()
  await scanner.firstSnapshot()
  await waitFor('the first round to end', () => scanner.nextScanAtMs !== undefined)
  return { scanner, source }
}

test('an early round asked for runs at once, and the hour-long schedule resumes after it', async (t) => {
  const source = new MemorySource()
  source.buckets.set('photos', usageOf(10, 1))
  const { scanner } = scannerFor(t, source)
  scanner.requestRound()
  assert.equal(source.beginScans, 0, 'before the schedule begins (state file loading), nothing')
  await scanner.start()
  await scanner.firstSnapshot()
  await waitFor('the first round to end', () => scanner.nextScanAtMs !== undefined)
  assert.equal(source.beginScans, 1)
  source.buckets.set('photos', usageOf(20, 2))
  scanner.requestRound()
  await waitFor('the early round', () => source.beginScans === 2 && scanner.nextScanAtMs !== undefined)
  assert.equal(scanner.snapshot?.buckets[0]?.name, 'photos')
  assert.ok((scanner.nextScanAtMs ?? 0) - Date.now() > HOUR_MS / 2, 'then the interval again')
})

test('asked for while a round runs: no second round at once, one right after it ends', async (t) => {
  const { scanner, source } = await scannedOnce(t)
  source.hold('photos')
  const running = scanner.scanNow()
  await waitFor('the held round', () => source.measured.length === 2)
  for (let asked = 0; asked < 5; asked++) scanner.requestRound()
  assert.equal(source.beginScans, 2, 'never overlapping the running round')
  source.held.clear()
  source.release()
  await running
  await waitFor(
    'the one round asked for',
    () => source.beginScans === 3 && scanner.nextScanAtMs !== undefined,
  )
  assert.equal(source.beginScans, 3, 'five requests during a round make one round after it')
})

test('an early round keeps the pause asked for after the last round, and never delays one due sooner', async (t) => {
  const { scanner, source } = await scannedOnce(t)
  const endedBy = Date.now()
  scanner.requestRound(HOUR_MS / 4)
  const due = (scanner.nextScanAtMs ?? 0) - endedBy
  assert.ok(due <= HOUR_MS / 4 && due > HOUR_MS / 4 - 60_000, `due ${due} ms after the round ended`)
  scanner.requestRound(HOUR_MS / 2)
  assert.ok((scanner.nextScanAtMs ?? 0) - endedBy <= HOUR_MS / 4, 'a longer pause does not push it later')
  assert.equal(source.beginScans, 1)
})
