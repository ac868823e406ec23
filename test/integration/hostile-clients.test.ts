import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { sampleValue } from '../support/exposition.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'

/**
 * Clients that try to take the real process down or flood its logs, rather than ask it anything:
 * a scraper playing with the scrape-timeout header, idle and slow connections, readers that stop
 * reading, more connections than file descriptors.
 */

const STATE_LINES = new Set(['collector failed', 'collector recovered'])

test('400 scrapes alternating a 1 µs timeout header with normal ones log a bounded number of lines', async (t) => {
  const cwd = await scratchFolder(t)
  const serving = await startServingProcess(t, { DATA_DIR: join(cwd, 'data') }, cwd)
  let failures = 0
  for (let scrape = 0; scrape < 400; scrape++) {
    const headers: Record<string, string> =
      scrape % 2 === 0 ? { 'X-Prometheus-Scrape-Timeout-Seconds': '0.000001' } : {}
    const exposition = await serving.scrape(headers)
    failures += exposition.samples.filter(
      (sample) => sample.name === 'objstore_scrape_collector_success' && sample.value !== 1,
    ).length
  }
  const stateLines = serving.logs().filter((line) => STATE_LINES.has(String(line.msg)))
  assert.ok(stateLines.length <= 4, `state-change lines: ${stateLines.length}`)
  // The header floors at a budget every collector meets: none failed for it.
  assert.equal(failures, 0, 'collector failures over the 400 scrapes')
  const last = await serving.scrape()
  assert.equal(sampleValue(last, 'objstore_scrape_collector_success', { collector: 'drives' }), 1)
  await assertCleanExit(serving)
})
