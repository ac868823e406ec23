import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  README_TABLES,
  readmeTableFor,
  spelledDuration,
  updateBenchReadme,
} from '../../bench/support/readme.js'
import type { BenchRow } from '../../bench/support/report.js'

const row = (name: string, pass: boolean): BenchRow => ({
  name,
  figure: '16.6 ms',
  baseline: 'prom-client 527 ms',
  ratio: 31.79,
  target: '< 50 ms',
  pass,
})

test('the README holds the markers the bench writes between, each pair once and in order', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  for (const [start, end] of Object.values(README_TABLES)) {
    assert.equal(readme.split(start).length, 2, start)
    assert.equal(readme.split(end).length, 2, end)
    assert.ok(readme.indexOf(start) < readme.indexOf(end))
  }
})

test('a full run replaces the main table and its run line, and nothing else', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const rows = [row('longest event-loop block, 2 snapshots published', true), row('idle RSS', false)]
  const updated = updateBenchReadme(readme, 'bench', rows, { elapsedMs: 191_400, cores: 2 })
  const [start, end] = README_TABLES.bench
  const section = updated.slice(updated.indexOf(start) + start.length, updated.indexOf(end))
  assert.equal(
    section,
    '\nMeasured on the 2-core development machine (`npm run bench`, 3 minutes 11 seconds in all):\n\n' +
      '| benchmark                                       | figure  | baseline           | ratio  | target  | result |\n' +
      '|-------------------------------------------------|---------|--------------------|--------|---------|--------|\n' +
      '| longest event-loop block, 2 snapshots published | 16.6 ms | prom-client 527 ms | 31.79x | < 50 ms | pass   |\n' +
      '| idle RSS                                        | 16.6 ms | prom-client 527 ms | 31.79x | < 50 ms | FAIL   |\n',
  )
  assert.equal(updated.slice(0, updated.indexOf(start)), readme.slice(0, readme.indexOf(start)))
  assert.equal(updated.slice(updated.indexOf(end)), readme.slice(readme.indexOf(end)))
  // Written twice, the same: the markers stay and nothing accumulates.
  assert.equal(updateBenchReadme(updated, 'bench', rows, { elapsedMs: 191_400, cores: 2 }), updated)
})

test('the soak table is its own; a run limited by any other filter may write none', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const updated = updateBenchReadme(readme, 'soak', [row('soak 10 min: RSS', true)], {
    elapsedMs: 1,
    cores: 2,
  })
  const [start, end] = README_TABLES.soak
  assert.match(updated.slice(updated.indexOf(start), updated.indexOf(end)), /\| soak 10 min: RSS +\| 16.6 ms/)
  const [benchStart, benchEnd] = README_TABLES.bench
  assert.equal(
    updated.slice(updated.indexOf(benchStart), updated.indexOf(benchEnd)),
    readme.slice(readme.indexOf(benchStart), readme.indexOf(benchEnd)),
  )
  assert.equal(readmeTableFor(''), 'bench')
  assert.equal(readmeTableFor('soak'), 'soak')
  assert.throws(() => readmeTableFor('scrape'), /a partial run would drop rows/)
  assert.throws(
    () => updateBenchReadme('no markers here', 'bench', [], { elapsedMs: 1, cores: 2 }),
    /lacks the markers/,
  )
  assert.equal(spelledDuration(59_600), '1 minute 0 seconds')
  assert.equal(spelledDuration(4_200), '4 seconds')
})
