import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Collector } from '../../src/collectors/types.js'
import { describe, family } from '../../src/metrics/families.js'
import { rawGet, startExporter } from '../support/exporter.js'
import { sampleValue } from '../support/exposition.js'

test('closing lets an in-flight scrape finish, then refuses new connections', async () => {
  let started: (() => void) | undefined
  const scrapeStarted = new Promise<void>((resolve) => (started = resolve))
  const slowFamilies = describe('test', {
    test_slow_collector_value: family('gauge', ['bucket'], 'Written by the slow test collector.', 'test'),
  })
  const slow: Collector<typeof slowFamilies> = {
    name: 'slow',
    families: slowFamilies,
    async collect(out) {
      started?.()
      await new Promise((resolve) => setTimeout(resolve, 300))
      out.set('test_slow_collector_value', { bucket: 'slow' }, 42)
    },
  }
  const exporter = await startExporter({}, { extraCollectors: [slow] })
  const inFlight = exporter.scrape()
  await scrapeStarted
  const closing = exporter.close()
  const scrape = await inFlight
  assert.equal(
    sampleValue(scrape, 'objstore_test_slow_collector_value', { bucket: 'slow' }),
    42,
    'the in-flight scrape completed whole',
  )
  await closing
  await assert.rejects(rawGet(`${exporter.baseUrl}/healthz`), /ECONNREFUSED/)
})
