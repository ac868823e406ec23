import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createSecretRedactor } from '../../src/logging/secret-redactor.js'
import { firstInOrder, formatAge, formatBytes, renderLandingPage } from '../../src/server/landing-page.js'
import type { ExporterStatus } from '../../src/server/status.js'
import type { BucketRecord } from '../../src/snapshot/snapshot.js'

const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY'

function status(overrides: Partial<ExporterStatus> = {}): ExporterStatus {
  return {
    startedAtMs: Date.UTC(2026, 0, 1),
    namespace: 'objstore',
    source: 'fs',
    scanIntervalSeconds: 300,
    collectors: () => [],
    drives: () => [],
    waitingFor: () => [],
    usage: () => undefined,
    sourceFailure: () => undefined,
    nextScanAtMs: () => undefined,
    ...overrides,
  }
}

function render(value: ExporterStatus): string {
  return renderLandingPage({
    version: '1.2.3',
    nodeVersion: 'v22.0.0',
    metricsPath: '/metrics',
    status: value,
    redactor: createSecretRedactor([SECRET]),
    nowMs: Date.UTC(2026, 0, 1, 0, 5),
  })
}

test('a secret quoted in an error or a readiness reason never reaches the page', () => {
  const page = render(
    status({
      collectors: () => [
        { name: 'usage', state: 'failing', error: `signature mismatch for ${SECRET}`, lastRunAtMs: 0 },
      ],
      waitingFor: () => [`source ${SECRET}`],
      drives: () => [{ path: '/mnt/d1', state: { online: false, reason: `odd ${SECRET}` } }],
    }),
  )
  assert.ok(!page.includes(SECRET))
  assert.match(page, /failing: signature mismatch for \[redacted\]/)
  assert.match(page, /offline: odd \[redacted\]/)
})

test('drive paths and errors are escaped, not interpreted as markup', () => {
  const page = render(
    status({
      drives: () => [
        { path: '/mnt/<script>alert(1)</script>', state: { online: false, reason: 'a "quoted" & <b>' } },
      ],
    }),
  )
  assert.ok(!page.includes('<script>alert'))
  assert.match(page, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/)
  assert.match(page, /a &#34;quoted&#34; &#38; &#60;b&#62;/)
})

test('an online drive gets a meter of used against used + available (df) and readable figures', () => {
  const page = render(
    status({
      drives: () => [
        {
          path: '/mnt/d1',
          state: {
            online: true,
            capacity: {
              totalBytes: 1024 ** 4,
              usedBytes: 256 * 1024 ** 3,
              freeBytes: 700 * 1024 ** 3,
              totalInodes: 10,
              usedInodes: 1,
              freeInodes: 9,
            },
          },
        },
        { path: '/mnt/d2' },
      ],
    }),
  )
  assert.match(page, /<meter min="0" max="1026497183744" [^>]*value="274877906944"/)
  // df's Use%: 256 / (256 + 700); the 68 GiB reserved for root are in neither.
  assert.match(page, /26\.8% used/)
  assert.match(page, /256\.0 GiB of 1\.0 TiB/)
  assert.match(page, /700\.0 GiB free/)
  assert.match(
    page,
    /data-drive="\/mnt\/d2"><td><code>\/mnt\/d2<\/code><\/td><td class="state unknown" colspan="3">not probed yet/,
  )
  assert.match(
    page,
    /Started<\/dt><dd><time datetime="2026-01-01T00:00:00Z">2026-01-01T00:00:00Z<\/time> \(5 min ago\)/,
  )
})

test('byte and age formatting', () => {
  assert.equal(formatBytes(0), '0 B')
  assert.equal(formatBytes(1023), '1023 B')
  assert.equal(formatBytes(1536), '1.5 KiB')
  assert.equal(formatBytes(5 * 1024 ** 5), '5.0 PiB')
  assert.equal(formatAge(42), '42 s')
  assert.equal(formatAge(600), '10 min')
  assert.equal(formatAge(3 * 3600), '3 h')
  assert.equal(formatAge(5 * 86400), '5 d')
})

test('buckets: the ten largest first, with the last scan, and a note before the first snapshot', () => {
  assert.match(render(status()), /No usage snapshot yet: the first scan is running/)
  const buckets: BucketRecord[] = Array.from({ length: 12 }, (_, index) => ({
    name: `bucket-${String(index).padStart(2, '0')}`,
    usage: { bytes: index * 1024, objects: index, newestModifiedSeconds: Date.UTC(2026, 0, 1) / 1000 - 3600 },
    scanSuccess: index !== 11,
    scanDurationSeconds: 0.1,
  }))
  buckets.push({ name: 'never-measured', scanSuccess: false, scanDurationSeconds: 1 })
  const page = render(
    status({
      usage: () => ({
        sourceName: 's3',
        sourceId: 's3:http://store',
        sourceUp: true,
        completedAtMs: Date.UTC(2026, 0, 1, 0, 3),
        buckets,
      }),
    }),
  )
  assert.match(
    page,
    /Source <code>s3<\/code> <span class="state ok">up<\/span>; last scan finished <time datetime="2026-01-01T00:03:00Z">[^<]+<\/time> \(2 min ago\); 13 bucket\(s\), 2 failing\./,
  )
  assert.match(page, /<caption>The 10 largest of 12\.<\/caption>/)
  const listed = [...page.matchAll(/data-bucket="([^"]+)"/g)].map((match) => match[1])
  assert.deepEqual(listed, [
    'bucket-11',
    'bucket-10',
    'bucket-09',
    'bucket-08',
    'bucket-07',
    'bucket-06',
    'bucket-05',
    'bucket-04',
    'bucket-03',
    'bucket-02',
  ])
  assert.match(
    page,
    /<tr data-bucket="bucket-11"><td><code>bucket-11<\/code><\/td><td>11\.0 KiB<\/td><td>11<\/td><td>65 min ago<\/td><td class="state bad">failed<\/td><\/tr>/,
  )
})

test('a source down shows its reason, scrubbed, in its row and the scan line; the next scan is named', () => {
  const page = render(
    status({
      collectors: () => [{ name: 'usage', state: 'ok', lastRunAtMs: Date.UTC(2026, 0, 1, 0, 4) }],
      usage: () => ({
        sourceName: 's3',
        sourceId: 's3:http://store',
        sourceUp: false,
        completedAtMs: Date.UTC(2026, 0, 1, 0, 3),
        buckets: [],
      }),
      sourceFailure: () => `ListBuckets: InvalidAccessKeyId (HTTP 403): key ${SECRET} unknown`,
      nextScanAtMs: () => Date.UTC(2026, 0, 1, 0, 8),
    }),
  )
  assert.ok(!page.includes(SECRET))
  assert.match(
    page,
    /<tr data-source="s3"><td>source <code>s3<\/code><\/td><td class="state bad">down: ListBuckets: InvalidAccessKeyId \(HTTP 403\): key \[redacted\] unknown<\/td>/,
  )
  assert.match(page, /<span class="state bad">down: ListBuckets: InvalidAccessKeyId/)
  assert.match(
    page,
    /<p id="next-scan">Next scan at <time datetime="2026-01-01T00:08:00Z">2026-01-01T00:08:00Z<\/time> \(in 3 min\)/,
  )
  assert.match(render(status({ nextScanAtMs: () => undefined })), /A scan is running now\./)
})

test('no drive configured (a remote source): a note, no empty table', () => {
  assert.match(render(status({ drives: () => [] })), /id="no-drives">No drive configured/)
})

test('the largest buckets are picked in one pass exactly as a stable sort orders them', () => {
  let seed = 7
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  // Few distinct sizes, so ties are many and the order among equals counts.
  const order = (a: { bytes: number }, b: { bytes: number }) => b.bytes - a.bytes
  for (const length of [0, 1, 5, 10, 11, 500]) {
    const items = Array.from({ length }, (_, index) => ({ index, bytes: Math.floor(random() * 8) }))
    for (const count of [0, 1, 3, 10, 600]) {
      assert.deepEqual(
        firstInOrder(items, count, order),
        [...items].sort(order).slice(0, count),
        `${count} of ${length}`,
      )
    }
  }
})
