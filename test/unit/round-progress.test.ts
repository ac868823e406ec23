import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { type Every, logProgressWhileRunning, progressFields } from '../../src/scanning/progress-log.js'
import { RoundProgress } from '../../src/scanning/round-progress.js'
import { UsageScanner } from '../../src/scanning/scanner.js'
import { RequestCounter } from '../../src/sources/request-counter.js'
import { CapturedOutput } from '../support/capture.js'
import { MemorySource, usageOf } from '../support/memory-source.js'
import { waitFor } from '../support/wait-for.js'

/**
 * The running round's progress (issue 26.9): the tracker's counts as buckets start, list and end,
 * and the progress line's cadence, on an injected clock and an injected interval (no wall clock).
 */

const START = Date.UTC(2026, 11, 5, 6, 0, 0)

test('counts what the listings tell, and replaces a bucket’s count by its record when it ends', () => {
  let now = START
  const requests = new RequestCounter('s3')
  requests.sent('ListBuckets')
  const progress = new RoundProgress({ source: 's3', startedAtMs: START, clock: () => now, requests })
  assert.equal(progress.view().phase, 'listing')
  assert.equal(progress.view().buckets, undefined)
  progress.planned(3)
  const big = progress.started('big')
  const small = progress.started('small')
  const broken = progress.started('broken')
  big.listed(1000, 10_000)
  big.listed(1000, 20_000)
  small.listed(5, 50)
  broken.listed(7, 70)
  for (let index = 0; index < 4; index++) requests.sent('ListObjectsV2')
  now = START + 4000
  let view = progress.view()
  assert.deepEqual(
    { ...view, inProgress: [...view.inProgress] },
    {
      source: 's3',
      startedAtMs: START,
      phase: 'measuring',
      buckets: 3,
      bucketsDone: 0,
      failed: 0,
      objects: 2012,
      bytes: 30_120,
      requests: 4,
      elapsedSeconds: 4,
      objectsPerSecond: 503,
      inProgress: ['big', 'small', 'broken'],
      inProgressCount: 3,
    },
  )
  // The record says what the bucket holds (a versions listing tells its pages' latest versions).
  progress.ended(small, { usage: usageOf(60, 6) })
  // A failed bucket keeps its last figures: what its listing told is taken back.
  progress.ended(broken, { failed: true })
  view = progress.view()
  assert.equal(view.objects, 2006)
  assert.equal(view.bytes, 30_060)
  assert.equal(view.bucketsDone, 2)
  assert.equal(view.failed, 1)
  assert.deepEqual(view.inProgress, ['big'])
  progress.ended(big, { usage: usageOf(30_000, 2000) })
  progress.ended(big, { usage: usageOf(30_000, 2000) }) // once only
  progress.finishing()
  view = progress.view()
  assert.deepEqual([view.phase, view.bucketsDone, view.objects, view.bytes], ['finishing', 3, 2006, 30_060])
  assert.equal(view.inProgressCount, 0)
})

test('names at most three buckets in progress, the longest first, and a fs round sends no requests', () => {
  const progress = new RoundProgress({ source: 'fs', startedAtMs: START, clock: () => START })
  progress.planned(5)
  const handles = ['a', 'b', 'c', 'd'].map((name) => progress.started(name))
  progress.ended(handles[0] as NonNullable<(typeof handles)[0]>, { failed: false })
  const view = progress.view()
  assert.deepEqual(view.inProgress, ['b', 'c', 'd'])
  assert.equal(view.inProgressCount, 3)
  assert.equal(view.requests, undefined)
  assert.equal(view.failed, 0, 'a bucket gone since the listing is not a failure')
  assert.equal(view.objectsPerSecond, 0, 'no time elapsed: no rate')
  const fields = progressFields(view)
  assert.equal('requests' in fields, false)
  assert.deepEqual(fields.inProgress, ['b', 'c', 'd'])
  assert.equal(fields.bucketsInProgress, 3)
})

/** An interval the test drives: ticks when told, and knows whether it was stopped. */
function manualEvery() {
  const state = { ms: 0, tick: undefined as (() => void) | undefined, stopped: false }
  const every: Every = (ms, tick) => {
    state.ms = ms
    state.tick = tick
    return () => {
      state.stopped = true
    }
  }
  return { state, every }
}

test('the progress line: every 15 s by default, one line a tick, none once stopped', () => {
  const log = new CapturedOutput()
  const logger = pino({ level: 'info' }, log)
  let now = START
  const progress = new RoundProgress({ source: 'fs', startedAtMs: START, clock: () => now })
  const { state, every } = manualEvery()
  const stop = logProgressWhileRunning({ logger, view: () => progress.view(), every })
  assert.equal(state.ms, 15_000)
  assert.equal(log.jsonLines().length, 0, 'nothing before the first interval')
  progress.planned(2)
  progress.started('photos').listed(65_536, 2 ** 30)
  now += 15_000
  state.tick?.()
  now += 15_000
  progress.started('logs').listed(10, 100)
  state.tick?.()
  stop()
  assert.equal(state.stopped, true)
  const lines = log.jsonLines().filter((line) => line.msg === 'usage scan progress')
  assert.equal(lines.length, 2)
  const [first, second] = lines
  assert.equal(first?.level, 30)
  assert.deepEqual(
    { ...first, level: undefined, time: undefined, pid: undefined, hostname: undefined },
    {
      level: undefined,
      time: undefined,
      pid: undefined,
      hostname: undefined,
      msg: 'usage scan progress',
      source: 'fs',
      phase: 'measuring',
      bucketsDone: 0,
      buckets: 2,
      failed: 0,
      objects: 65_536,
      bytes: 2 ** 30,
      objectsPerSecond: 4369.1,
      elapsedSeconds: 15,
      inProgress: ['photos'],
      bucketsInProgress: 1,
    },
  )
  assert.equal(second?.objects, 65_546)
  assert.equal(second?.elapsedSeconds, 30)
})

test('the scanner shows a running round, logs it at its interval, and forgets it at the end', async (t) => {
  const source = new MemorySource()
  source.buckets.set('alpha', usageOf(100, 1))
  source.buckets.set('beta', usageOf(2000, 20))
  source.hold('beta')
  const log = new CapturedOutput()
  const scanner = new UsageScanner({
    source,
    filter: () => true,
    intervalMs: 3_600_000,
    concurrency: 2,
    timeoutMs: 3_600_000,
    logger: pino({ level: 'info' }, log),
    progressIntervalMs: 20,
  })
  t.after(() => scanner.close())
  assert.equal(scanner.progress, undefined, 'no round yet')
  const scanned = scanner.scanNow()
  await waitFor('alpha measured', () => scanner.progress?.bucketsDone === 1)
  const running = (scanner as { progress: UsageScanner['progress'] }).progress
  assert.deepEqual([running?.buckets, running?.objects, running?.inProgress], [2, 1, ['beta']])
  await waitFor('a progress line while beta is held', () =>
    log.jsonLines().some((line) => line.msg === 'usage scan progress'),
  )
  source.release()
  await scanned
  assert.equal(scanner.progress, undefined, 'no round runs')
  const before = log.jsonLines().length
  const finished = log.jsonLines().find((line) => line.msg === 'usage scan finished')
  assert.deepEqual([finished?.buckets, finished?.objects, finished?.bytes], [2, 21, 2100])
  const progressLine = log.jsonLines().find((line) => line.msg === 'usage scan progress')
  assert.deepEqual([progressLine?.bucketsDone, progressLine?.buckets, progressLine?.objects], [1, 2, 1])
  // The interval stopped with the round: a wait of many intervals adds no line.
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(log.jsonLines().length, before)
})
