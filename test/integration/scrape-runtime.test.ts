import assert from 'node:assert/strict'
import type { StatsFs } from 'node:fs'
import { test } from 'node:test'
import { statfs } from '../../src/collectors/drive-probe.js'
import { startExporter } from '../support/exporter.js'

/** The lines of the runtime families (prom-client's process_* and nodejs_*) in a scrape's text. */
const runtimeLines = (text: string) => text.split('\n').filter((line) => /^(process|nodejs)_/.test(line))

test('runtime families are shared by the scrapes of their max age; drives are read every scrape', async () => {
  let statfsCalls = 0
  const counting = (path: string): Promise<StatsFs> => {
    statfsCalls++
    return statfs(path)
  }
  // An hour: both scrapes fall in one reading whatever the machine's load (which must not shed them).
  const running = await startExporter(
    { MAX_EVENT_LOOP_DELAY_MS: '0' },
    { statfs: counting, runtimeMaxAgeMs: 3_600_000 },
  )
  try {
    const url = `${running.baseUrl}/metrics`
    const scrape = async () => {
      const response = await fetch(url)
      assert.equal(response.status, 200)
      return response.text()
    }
    const first = await scrape()
    const callsAfterFirst = statfsCalls
    // Garbage between the scrapes: a fresh reading would show another heap size.
    const garbage = Array.from({ length: 10_000 }, (_, index) => ({ index }))
    const second = await scrape()
    assert.ok(garbage.length > 0)
    assert.ok(runtimeLines(first).some((line) => line.startsWith('nodejs_heap_size_used_bytes ')))
    assert.deepEqual(runtimeLines(second), runtimeLines(first))
    assert.ok(callsAfterFirst >= 1, 'the first scrape read the drive')
    assert.ok(statfsCalls > callsAfterFirst, 'the second scrape read the drive again')
  } finally {
    await running.close()
  }
})
