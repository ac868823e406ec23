import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { percentile, runLoad } from '../../bench/support/load-client.js'

test('the load generator counts answers, bytes, non-2xx and timeouts (as errors) on a real server', async () => {
  const body = Buffer.alloc(256 * 1024, 7)
  const held: ServerResponse[] = []
  let seen = 0
  const server = createServer((_request, response) => {
    seen++
    // The second request is never answered: the generator must time it out and carry on.
    if (seen === 2) return void held.push(response)
    if (seen === 3) return void response.writeHead(503, { 'Retry-After': '1' }).end('busy')
    response.writeHead(200, { 'Content-Length': body.length }).end(body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    const { port } = server.address() as AddressInfo
    const result = await runLoad(`http://127.0.0.1:${port}/metrics`, {
      connections: 2,
      seconds: 2,
      headers: { 'accept-encoding': 'gzip' },
      timeoutMs: 300,
    })
    assert.equal(result.timeouts, 1)
    assert.equal(result.errors, 1)
    assert.equal(result.non2xx, 1)
    assert.equal(result.statuses['503'], 1)
    const ok = result.statuses['200'] ?? 0
    assert.ok(ok > 0, 'answers of 200 counted')
    assert.equal(result.total, ok + 1)
    assert.equal(result.bytes, ok * body.length + 'busy'.length)
    assert.ok(result.latencyMs.p50 <= result.latencyMs.p99 && result.latencyMs.p99 <= result.latencyMs.max)
    assert.ok(result.cpuMs > 0)
  } finally {
    for (const response of held) response.destroy()
    server.closeAllConnections()
    server.close()
  }
})

test('percentile picks the nearest rank', () => {
  const sorted = Array.from({ length: 100 }, (_, index) => index + 1)
  assert.equal(percentile(sorted, 0.5), 50)
  assert.equal(percentile(sorted, 0.99), 99)
  assert.equal(percentile([], 0.99), 0)
  assert.equal(percentile([4], 0.99), 4)
})
