import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  PAGE_TABLES,
  pageTableFor,
  spelledDuration,
  updatePerformancePage,
} from '../../bench/support/performance-page.js'
import type { BenchRow } from '../../bench/support/report.js'

const row = (name: string, pass: boolean): BenchRow => ({
  name,
  figure: '16.6 ms',
  baseline: 'prom-client 527 ms',
  ratio: 31.79,
  target: '< 50 ms',
  pass,
})

test('docs/performance.md holds the markers the bench writes between, each pair once and in order', () => {
  const page = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8')
  for (const [start, end] of Object.values(PAGE_TABLES)) {
    assert.equal(page.split(start).length, 2, start)
    assert.equal(page.split(end).length, 2, end)
    assert.ok(page.indexOf(start) < page.indexOf(end))
  }
})

test('a full run replaces the main table and its run line, and nothing else', () => {
  const page = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8')
  const rows = [row('longest event-loop block, 2 snapshots published', true), row('idle RSS', false)]
  const updated = updatePerformancePage(page, 'bench', rows, { elapsedMs: 191_400, cores: 2 })
  const [start, end] = PAGE_TABLES.bench
  const section = updated.slice(updated.indexOf(start) + start.length, updated.indexOf(end))
  assert.equal(
    section,
    '\nMeasured on the 2-core development machine (`npm run bench`, 3 minutes 11 seconds in all):\n\n' +
      '| benchmark                                       | figure  | baseline           | ratio  | target  | result |\n' +
      '|-------------------------------------------------|---------|--------------------|--------|---------|--------|\n' +
      '| longest event-loop block, 2 snapshots published | 16.6 ms | prom-client 527 ms | 31.79x | < 50 ms | pass   |\n' +
      '| idle RSS                                        | 16.6 ms | prom-client 527 ms | 31.79x | < 50 ms | FAIL   |\n',
  )
  assert.equal(updated.slice(0, updated.indexOf(start)), page.slice(0, page.indexOf(start)))
  assert.equal(updated.slice(updated.indexOf(end)), page.slice(page.indexOf(end)))
  // Written twice, the same: the markers stay and nothing accumulates.
  assert.equal(updatePerformancePage(updated, 'bench', rows, { elapsedMs: 191_400, cores: 2 }), updated)
})

test('the soak table is its own; a run limited by any other filter may write none', () => {
  const page = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8')
  const updated = updatePerformancePage(page, 'soak', [row('soak 10 min: RSS', true)], {
    elapsedMs: 1,
    cores: 2,
  })
  const [start, end] = PAGE_TABLES.soak
  assert.match(updated.slice(updated.indexOf(start), updated.indexOf(end)), /\| soak 10 min: RSS +\| 16.6 ms/)
  const [benchStart, benchEnd] = PAGE_TABLES.bench
  assert.equal(
    updated.slice(updated.indexOf(benchStart), updated.indexOf(benchEnd)),
    page.slice(page.indexOf(benchStart), page.indexOf(benchEnd)),
  )
  assert.equal(pageTableFor(''), 'bench')
  assert.equal(pageTableFor('soak'), 'soak')
  assert.throws(() => pageTableFor('scrape'), /a partial run would drop rows/)
  assert.throws(
    () => updatePerformancePage('no markers here', 'bench', [], { elapsedMs: 1, cores: 2 }),
    /lacks the markers/,
  )
  assert.equal(spelledDuration(59_600), '1 minute 0 seconds')
  assert.equal(spelledDuration(4_200), '4 seconds')
})
