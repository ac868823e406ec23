import assert from 'node:assert/strict'
import type { StatsFs } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { capacityOf, DriveProbe, statfs } from '../../src/collectors/drive-probe.js'

test('a real directory is online with the numbers statfs gives', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'objstore-drive-'))
  try {
    const state = await new DriveProbe().probe(folder, 5000)
    assert.equal(state.online, true)
    if (!state.online) return
    const expected = capacityOf(await statfs(folder))
    assert.equal(state.capacity.totalBytes, expected.totalBytes)
    assert.ok(state.capacity.totalBytes > 0)
    assert.ok(state.capacity.freeBytes <= state.capacity.totalBytes)
    assert.equal(state.capacity.usedInodes, state.capacity.totalInodes - state.capacity.freeInodes)
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
})

test('a missing path is offline with the errno as reason', async () => {
  const state = await new DriveProbe().probe('/nonexistent/objstore/drive', 5000)
  assert.deepEqual(state, { online: false, reason: 'statfs failed: ENOENT' })
})

test('capacity arithmetic: used counts root-reserved blocks, free does not', () => {
  const stats = {
    bsize: 4096,
    blocks: 1000,
    bfree: 300,
    bavail: 250,
    files: 500,
    ffree: 120,
    type: 0,
  } as StatsFs
  assert.deepEqual(capacityOf(stats), {
    totalBytes: 4096000,
    freeBytes: 1024000,
    usedBytes: 2867200,
    totalInodes: 500,
    freeInodes: 120,
    usedInodes: 380,
  })
})

test('a hung statfs is reported offline and not called again until it returns', async () => {
  // Simulates a dead network mount: the call neither resolves nor rejects until we say so.
  let calls = 0
  let release: ((stats: StatsFs) => void) | undefined
  const hungStatfs = (_path: string) => {
    calls++
    if (calls === 1) return new Promise<StatsFs>((resolve) => (release = resolve))
    return statfs(tmpdir())
  }
  const probe = new DriveProbe(hungStatfs)
  const first = await probe.probe('/mnt/nfs', 20)
  assert.deepEqual(first, { online: false, reason: 'statfs did not return within 20 ms' })
  const second = await probe.probe('/mnt/nfs', 20)
  assert.equal(second.online, false)
  assert.match(
    second.online ? '' : second.reason,
    /^statfs pending since \d{4}-\d\d-\d\dT[\d:.]+Z \(drive hung\?\)$/,
  )
  assert.equal(calls, 1, 'no second call while the first is pending')
  assert.ok(probe.pending.has('/mnt/nfs'))
  release?.(await statfs(tmpdir()))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(probe.pending.size, 0)
  const third = await probe.probe('/mnt/nfs', 5000)
  assert.equal(third.online, true)
  assert.equal(calls, 2)
})

test('probes that find a statfs pending within the timeout share its answer instead of reporting offline', async () => {
  let calls = 0
  let release: ((stats: StatsFs) => void) | undefined
  const slowStatfs = (_path: string) => {
    calls++
    return new Promise<StatsFs>((resolve) => (release = resolve))
  }
  const probe = new DriveProbe(slowStatfs)
  // 50 scrapes arrive while the first one's call is outstanding (well inside the 60 s timeout).
  const states = Array.from({ length: 50 }, () => probe.probe('/mnt/slow', 60_000))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(calls, 1, 'one call for every probe')
  release?.(await statfs(tmpdir()))
  for (const state of await Promise.all(states)) assert.equal(state.online, true)
  assert.equal(probe.pending.size, 0)
})

test('a probe that finds a pending call waits only for what is left of the timeout from its start', async () => {
  let release: ((stats: StatsFs) => void) | undefined
  const hungStatfs = (_path: string) => new Promise<StatsFs>((resolve) => (release = resolve))
  const probe = new DriveProbe(hungStatfs)
  const first = probe.probe('/mnt/nfs', 30)
  const second = probe.probe('/mnt/nfs', 30)
  // Both give up when the shared call reaches 30 ms, with the same reason.
  assert.deepEqual(await Promise.all([first, second]), [
    { online: false, reason: 'statfs did not return within 30 ms' },
    { online: false, reason: 'statfs did not return within 30 ms' },
  ])
  release?.(await statfs(tmpdir()))
})

test("MinIO's drive error counters and waiting calls: what the probes met, per drive", async () => {
  let release: ((stats: StatsFs) => void) | undefined
  // Real answers, taken before the probes: a statfs through a busy thread pool can pass the
  // 20 ms timeout, and "ok" would count a timeout that has nothing to do with the drive.
  const okStats = await statfs(tmpdir())
  const missingError: unknown = await statfs('/nonexistent/objstore/drive').catch((error: unknown) => error)
  const answers = new Map<string, () => Promise<StatsFs>>([
    ['/mnt/ok', () => Promise.resolve(okStats)],
    ['/mnt/missing', () => Promise.reject(missingError)],
    ['/mnt/hung', () => new Promise<StatsFs>((resolve) => (release = resolve))],
  ])
  const probe = new DriveProbe((path) => (answers.get(path) as () => Promise<StatsFs>)())
  for (let round = 0; round < 3; round++) {
    for (const path of answers.keys()) await probe.probe(path, 20)
  }
  assert.deepEqual(probe.errors('/mnt/ok'), { availability: 0, timeout: 0 })
  assert.deepEqual(probe.errors('/mnt/missing'), { availability: 3, timeout: 0 })
  // The first probe timed out, the next two found the same call still pending.
  assert.deepEqual(probe.errors('/mnt/hung'), { availability: 3, timeout: 3 })
  assert.equal(probe.waiting('/mnt/hung'), 1)
  assert.equal(probe.waiting('/mnt/ok'), 0)
  release?.(await statfs(tmpdir()))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(probe.waiting('/mnt/hung'), 0)
})
