import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { rawGet } from '../support/exporter.js'
import { residentBytes } from '../support/process.js'
import { scratchFolder } from '../support/scratch.js'
import { assertCleanExit, startServingProcess } from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Issue 11, item 3: memory bounded whatever clients do. The real process scans a data folder of
 * many buckets every second, so it publishes a new snapshot every second or two. One client
 * without gzip scrapes once, then only gzip scrapes come (the old code kept the text of every
 * later snapshot for 5 minutes); then slow readers without gzip start on successive snapshots and
 * stop reading (the old code pinned a whole text per reader). The resident set, sampled all along,
 * must stay within docs/performance.md's bound: one text, and per plain response in flight the compressed
 * snapshot it is sending and 2 MB of buffers; plus a generous margin for garbage not yet
 * collected (replaced snapshots, render workers). Bounds on size only, never on time.
 */

const BUCKETS = 5000
/** Snapshots served to gzip scrapes only, before and after the one plain scrape. */
const STEADY_SNAPSHOTS = 6
const GZIP_SNAPSHOTS = 10
const SLOW_READERS = 10
/** Run-to-run noise of the live memory floor (the heap's own figures vary). */
const FLOOR_MARGIN = 32 * 2 ** 20
/** Run-to-run noise of the peak: garbage of replaced snapshots not yet collected. */
const PEAK_MARGIN = 64 * 2 ** 20

const PLAIN = { Accept: 'text/plain;version=0.0.4' }
const GZIP = { ...PLAIN, 'Accept-Encoding': 'gzip' }
const MB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`

/** A sample's value from a scrape's text (one without labels). */
function sampleOf(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  assert.ok(match, `the scrape carries ${name}`)
  return Number(match[1])
}

/** The snapshot's age: it drops when a new snapshot is published. */
const snapshotAge = (text: string) => sampleOf(text, 'objstore_usage_snapshot_age_seconds')

/** What the exporter's heap and buffers hold (its own runtime families): live memory, no allocator. */
const liveBytes = (text: string) =>
  sampleOf(text, 'nodejs_heap_size_used_bytes') + sampleOf(text, 'nodejs_external_memory_bytes')

interface Sample {
  readonly rss: number
  readonly live: number
}

test('memory stays bounded: one plain scrape then gzip only, then slow plain readers on successive snapshots', async (t) => {
  const cwd = await scratchFolder(t, 'objstore-memory-bound-')
  const data = join(cwd, 'data')
  for (let index = 0; index < BUCKETS; index++) {
    const bucket = join(data, `bucket-${String(index).padStart(5, '0')}`)
    await mkdir(bucket, { recursive: true })
    await writeFile(join(bucket, 'object'), Buffer.alloc(index % 300))
  }
  const exporter = await startServingProcess(
    t,
    { DATA_DIR: data, SCAN_INTERVAL_SECONDS: '1', LOG_LEVEL: 'warn' },
    cwd,
  )
  const url = `${exporter.baseUrl}/metrics`
  const pid = exporter.process.child.pid as number
  const readers: Socket[] = []
  t.after(() => {
    for (const reader of readers) reader.destroy()
  })

  const gzipScrape = async () => {
    const response = await rawGet(url, GZIP)
    assert.equal(response.status, 200)
    return { compressed: response.body.length, text: gunzipSync(response.body).toString('utf8') }
  }
  let age = Number.POSITIVE_INFINITY
  await waitFor(
    `a snapshot of ${BUCKETS} buckets`,
    async () => {
      const { text } = await gzipScrape()
      if ((text.match(/^objstore_bucket_usage_total_bytes\{/gm)?.length ?? 0) !== BUCKETS) return false
      age = snapshotAge(text)
      return true
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  )

  let compressedBytes = 0
  /** Samples per snapshot served, latest last. */
  let perSnapshot: Sample[][] = []
  /** Gzip scrapes until the next snapshot is served (a bounded wait: scans come every second). */
  const nextSnapshot = async () => {
    perSnapshot.push([])
    await waitFor(
      'a new snapshot',
      async () => {
        const scrape = await gzipScrape()
        compressedBytes = Math.max(compressedBytes, scrape.compressed)
        const replaced = snapshotAge(scrape.text) < age
        age = snapshotAge(scrape.text)
        perSnapshot.at(-1)?.push({ rss: (await residentBytes(pid)).now, live: liveBytes(scrape.text) })
        return replaced
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    )
  }
  /**
   * A phase's peak resident set, and its floor of live memory: the lowest over its last two
   * snapshots, after collections (retained texts would show there, garbage would not).
   */
  const phase = async (snapshots: number, each: () => Promise<void> = async () => undefined) => {
    perSnapshot = []
    for (let index = 0; index < snapshots; index++) {
      await each()
      await nextSnapshot()
    }
    return {
      peak: Math.max(...perSnapshot.flat().map((sample) => sample.rss)),
      floor: Math.min(
        ...perSnapshot
          .slice(-2)
          .flat()
          .map((sample) => sample.live),
      ),
    }
  }

  // Prometheus alone: the steady state every other figure is compared with.
  const gzipBefore = await phase(STEADY_SNAPSHOTS)
  // One client without gzip scrapes once; then gzip only again.
  const plain = await rawGet(url, PLAIN)
  assert.equal(plain.status, 200)
  const textBytes = plain.body.length
  const gzipAfterPlain = await phase(GZIP_SNAPSHOTS)
  // Slow readers without gzip, one per snapshot: each reads the first bytes and stops.
  const slowReaders = await phase(SLOW_READERS, async () => {
    const reader = connect(exporter.port, '127.0.0.1')
    readers.push(reader)
    await new Promise<void>((resolve, reject) => {
      reader.once('error', reject)
      reader.once('data', () => {
        reader.pause()
        resolve()
      })
      reader.write(`GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ${PLAIN.Accept}\r\n\r\n`)
    })
  })

  // docs/performance.md: one text held at most, and per plain response in flight the compressed
  // snapshot it sends and 2 MB of buffers. Live memory must stay within that; the resident
  // set's peak may add as much again (a text being inflated while one is held), no more.
  const allowed = textBytes + SLOW_READERS * (compressedBytes + 2 * 2 ** 20)
  const floorBound = gzipBefore.floor + allowed + FLOOR_MARGIN
  const peakBound = gzipBefore.peak + 2 * allowed + PEAK_MARGIN
  t.diagnostic(
    `text ${MB(textBytes)}, gzip ${MB(compressedBytes)}; live floor / RSS peak: gzip only ${MB(gzipBefore.floor)}/` +
      `${MB(gzipBefore.peak)}; after one plain scrape ${MB(gzipAfterPlain.floor)}/${MB(gzipAfterPlain.peak)}; ` +
      `${SLOW_READERS} slow readers ${MB(slowReaders.floor)}/${MB(slowReaders.peak)}; ` +
      `bounds ${MB(floorBound)}/${MB(peakBound)}`,
  )
  for (const [name, figures] of Object.entries({ gzipAfterPlain, slowReaders })) {
    assert.ok(
      figures.floor < floorBound,
      `${name}: live memory floor ${MB(figures.floor)} over ${MB(floorBound)}`,
    )
    assert.ok(figures.peak < peakBound, `${name}: RSS peak ${MB(figures.peak)} over ${MB(peakBound)}`)
  }

  // The slow readers gone, the exporter still answers whole, and ends cleanly.
  for (const reader of readers) reader.destroy()
  const last = await rawGet(url, PLAIN)
  assert.equal(last.status, 200)
  assert.equal(last.body.length, Number(last.headers['content-length']))
  await assertCleanExit(exporter)
})
