import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { CollectorRunner, STATE_LINE_WINDOW_MS, STATE_LINES_PER_WINDOW } from '../../src/collectors/runner.js'
import type { Collector } from '../../src/collectors/types.js'
import { DuplicateFamilyError, describe, family } from '../../src/metrics/families.js'

const silent = pino({ level: 'silent' })

const testFamilies = describe('test', {
  cluster_drives: family('gauge', [], 'Written by the healthy test collector.'),
  cluster_buckets: family('gauge', [], 'Written by the throwing test collector.'),
})
const healthyFamilies = describe('test', { cluster_drives: testFamilies.cluster_drives })
const throwingFamilies = describe('test', { cluster_buckets: testFamilies.cluster_buckets })
const none = describe('test', {})

const healthy: Collector<typeof healthyFamilies> = {
  name: 'healthy',
  families: healthyFamilies,
  collect(out) {
    out.set('cluster_drives', {}, 3)
  },
}

test('a throwing collector loses only its own samples and shows success 0', async () => {
  const throwing: Collector<typeof throwingFamilies> = {
    name: 'throwing',
    families: throwingFamilies,
    collect(out) {
      out.set('cluster_buckets', {}, 7)
      throw new Error('source exploded')
    },
  }
  const set = await new CollectorRunner([healthy, throwing], silent).run(1000)
  assert.deepEqual(
    set.samples('cluster_drives').map((s) => s.value),
    [3],
  )
  assert.deepEqual(set.samples('cluster_buckets'), [], 'a failed collector contributes nothing')
  const success = Object.fromEntries(
    set.samples('scrape_collector_success').map((s) => [s.labels.collector, s.value]),
  )
  assert.deepEqual(success, { healthy: 1, throwing: 0 })
})

test('a collector that never resolves is cut off at the budget and aborted', async () => {
  let aborted = false
  const hanging: Collector = {
    name: 'hanging',
    families: none,
    collect(_out, signal) {
      signal.addEventListener('abort', () => {
        aborted = true
      })
      return new Promise(() => {})
    },
  }
  const set = await new CollectorRunner([healthy, hanging], silent).run(50)
  assert.equal(aborted, true)
  const byName = (family: 'scrape_collector_success' | 'scrape_collector_duration_seconds') =>
    Object.fromEntries(set.samples(family).map((s) => [s.labels.collector, s.value]))
  assert.deepEqual(byName('scrape_collector_success'), { healthy: 1, hanging: 0 })
  assert.ok((byName('scrape_collector_duration_seconds').hanging ?? 0) >= 0.045, 'duration covers the wait')
  assert.deepEqual(
    set.samples('cluster_drives').map((s) => s.value),
    [3],
  )
})

test('failures are logged on change of state, not on every scrape', async () => {
  const lines: Array<{ msg: string }> = []
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  let fail = true
  const flaky: Collector = {
    name: 'flaky',
    families: none,
    collect() {
      if (fail) throw new Error('down')
    },
  }
  const runner = new CollectorRunner([flaky], logger)
  await runner.run(1000)
  await runner.run(1000)
  await runner.run(1000)
  fail = false
  await runner.run(1000)
  await runner.run(1000)
  assert.deepEqual(
    lines.map((line) => line.msg),
    ['collector failed', 'collector recovered'],
  )
})

test('a flapping collector logs a bounded number of lines, then the truth with a count', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const lines: Array<{ msg: string; collector: string; suppressedChanges?: number }> = []
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  let fail = false
  const flapping: Collector = {
    name: 'flapping',
    families: none,
    collect() {
      if (fail) throw new Error('down')
    },
  }
  let nowMs = 0
  const runner = new CollectorRunner([flapping, healthy], logger, () => nowMs)
  // 400 scrapes one second apart, failing every other one: 400 changes of state.
  for (let scrape = 0; scrape < 400; scrape++) {
    fail = scrape % 2 === 0
    nowMs += 1
    await runner.run(1000)
  }
  assert.equal(lines.length, STATE_LINES_PER_WINDOW, 'only the first changes of the window are logged')
  assert.ok(lines.every((line) => line.collector === 'flapping'))
  // The last scrape succeeded; at the window's end the log says so, with what it held back.
  t.mock.timers.tick(STATE_LINE_WINDOW_MS)
  const last = lines.at(-1)
  assert.equal(lines.length, STATE_LINES_PER_WINDOW + 1)
  assert.equal(last?.msg, 'collector recovered')
  assert.equal(last?.suppressedChanges, 400 - STATE_LINES_PER_WINDOW)
  // A later window logs changes again.
  nowMs += STATE_LINE_WINDOW_MS
  fail = true
  await runner.run(1000)
  assert.equal(lines.at(-1)?.msg, 'collector failed')
  assert.equal(lines.at(-1)?.suppressedChanges, undefined)
})

test('two collectors declaring one family are refused when the runner is made', () => {
  const twin: Collector<typeof healthyFamilies> = { ...healthy, name: 'twin' }
  assert.throws(
    () => new CollectorRunner([healthy, twin], silent),
    (error: unknown) =>
      error instanceof DuplicateFamilyError &&
      /cluster_drives is declared by both collector healthy and collector twin/.test(error.message),
  )
  const clash = describe('test', { scrape_collector_success: family('gauge', ['collector'], 'A clash.') })
  assert.throws(
    () => new CollectorRunner([{ name: 'clash', families: clash, collect() {} }], silent),
    /scrape_collector_success is declared by both collector clash and the runner/,
  )
})

test('a collector can write only the families it declares', async () => {
  const sneaky: Collector<typeof healthyFamilies> = {
    name: 'sneaky',
    families: healthyFamilies,
    collect(out) {
      // @ts-expect-error: undeclared families are refused by the type system too.
      out.set('cluster_buckets', {}, 1)
    },
  }
  const set = await new CollectorRunner(
    [sneaky, { name: 'other', families: none, collect() {} }],
    silent,
  ).run(1000)
  assert.deepEqual(
    Object.fromEntries(set.samples('scrape_collector_success').map((s) => [s.labels.collector, s.value])),
    { sneaky: 0, other: 1 },
  )
  assert.deepEqual(set.samples('cluster_buckets'), [])
})
