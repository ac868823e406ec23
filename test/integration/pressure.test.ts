import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SECURITY_HEADERS } from '../../src/server/plugins/security-headers.js'
import { rawGet, startExporter } from '../support/exporter.js'
import { waitFor } from '../support/wait-for.js'

function blockEventLoop(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // Deliberately busy: this is the overload under test.
  }
}

test('an overloaded event loop sheds scrapes with 503 and Retry-After; liveness stays up', async (t) => {
  const exporter = await startExporter({ MAX_EVENT_LOOP_DELAY_MS: '20' })
  t.after(() => exporter.close())
  const url = `${exporter.baseUrl}/metrics`
  // Start-up itself (loading modules, the first scan) can hold the loop over 20 ms, and the
  // sampler remembers it for up to a second: wait for a calm loop before overloading it.
  await waitFor('a first scrape answered 200', async () => (await rawGet(url)).status === 200, {
    timeoutMs: 20_000,
  })
  // Load shedding samples the delay about once a second: keep the loop blocked across a sample,
  // then ask for a scrape and for liveness in the same moment.
  let shed: Awaited<ReturnType<typeof rawGet>> | undefined
  let livenessWhileShedding: number | undefined
  for (let attempt = 0; attempt < 20 && !shed; attempt++) {
    blockEventLoop(200)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const [scrape, health] = await Promise.all([rawGet(url), rawGet(`${exporter.baseUrl}/healthz`)])
    if (scrape.status === 503) {
      shed = scrape
      livenessWhileShedding = health.status
    }
  }
  assert.ok(shed, 'a scrape was answered 503 while the loop was overloaded')
  assert.equal(shed.headers['retry-after'], '10')
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    assert.equal(shed.headers[name], value, `${name} on a shed scrape`)
  assert.equal(livenessWhileShedding, 200, 'liveness answers while scrapes are shed')
})
