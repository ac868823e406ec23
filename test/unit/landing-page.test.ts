import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createSecretRedactor } from '../../src/logging/secret-redactor.js'
import { formatAge, formatBytes, formatCount } from '../../src/server/landing/format.js'
import { type LandingQuery, listStateOf } from '../../src/server/landing/query.js'
import { renderLandingPage } from '../../src/server/landing-page.js'
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

function render(value: ExporterStatus, query: LandingQuery = {}): string {
  return renderLandingPage({
    list: listStateOf(query),
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
  assert.match(
    page,
    /256\.0 GiB<\/span> of <span class="size" title="1,099,511,627,776 bytes">1\.0 TiB<\/span>/,
  )
  assert.match(page, /700\.0 GiB<\/span> free/)
  // Used + free + reserved = capacity: the 68 GiB the filesystem reserves are shown, not lost.
  assert.match(
    page,
    /<td class="reserved"><span class="size" title="73,014,444,032 bytes">68\.0 GiB<\/span> reserved<\/td>/,
  )
  assert.match(
    page,
    /data-drive="\/mnt\/d2"><td><code>\/mnt\/d2<\/code><\/td><td class="state unknown" colspan="4">not probed yet/,
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
  assert.equal(formatCount(0), '0')
  assert.equal(formatCount(1234567), '1,234,567')
  assert.equal(formatCount(2 ** 53), '9,007,199,254,740,992')
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

/** `count` buckets named bucket-0000.., bucket i holding (i + 1) KiB in i + 1 objects, an hour old. */
function snapshotOf(count: number, sourceName = 's3', extra: BucketRecord[] = []) {
  const buckets: BucketRecord[] = Array.from({ length: count }, (_, index) => ({
    name: `bucket-${String(index).padStart(4, '0')}`,
    usage: {
      bytes: (index + 1) * 1024,
      objects: index + 1,
      newestModifiedSeconds: Date.UTC(2026, 0, 1) / 1000 - 3600,
    },
    scanSuccess: index !== 0,
    scanDurationSeconds: 0.1,
  }))
  return {
    sourceName,
    sourceId: `${sourceName}:x`,
    sourceUp: true,
    completedAtMs: Date.UTC(2026, 0, 1, 0, 3),
    buckets: [...buckets, ...extra].sort((a, b) => (a.name < b.name ? -1 : 1)),
  }
}

const listed = (page: string) => [...page.matchAll(/<tr data-bucket="([^"]+)"/g)].map((match) => match[1])

test('every bucket, a page of 100 at a time, largest first, with links to the other pages', () => {
  const snapshot = snapshotOf(250)
  const first = render(status({ usage: () => snapshot }))
  assert.match(
    first,
    /Source <code>s3<\/code> <span class="state ok">up<\/span>; last scan finished <time datetime="2026-01-01T00:03:00Z">[^<]+<\/time> \(2 min ago\); 250 bucket\(s\), 1 failing\./,
  )
  assert.equal(listed(first).length, 100)
  assert.equal(listed(first)[0], 'bucket-0249')
  assert.match(first, /<caption>Buckets 1 to 100 of 250\.<\/caption>/)
  assert.match(
    first,
    /Page 1 of 3: <a href="\/\?page=2" rel="next">next<\/a> · <a href="\/\?page=3" rel="last">last<\/a>/,
  )
  const third = render(status({ usage: () => snapshot }), { page: 3 })
  assert.deepEqual(
    listed(third),
    snapshot.buckets
      .slice(0, 50)
      .map((bucket) => bucket.name)
      .reverse(),
  )
  assert.match(third, /<caption>Buckets 201 to 250 of 250\.<\/caption>/)
  assert.match(third, /<a href="\/" rel="first">first<\/a> · <a href="\/\?page=2" rel="prev">previous<\/a>/)
  assert.match(render(status({ usage: () => snapshot }), { page: 9 }), /Page 9 is past the last, 3\./)
  // A row: size with its exact bytes a hover away, objects with thousands separators, age, scan state.
  const big = snapshotOf(1, 's3', [
    {
      name: 'huge',
      usage: { bytes: 5 * 1024 ** 4, objects: 1234567 },
      scanSuccess: true,
      scanDurationSeconds: 1,
    },
  ])
  assert.match(
    render(status({ usage: () => big })),
    /<tr data-bucket="huge"><td><code>huge<\/code><\/td><td><span class="size" title="5,497,558,138,880 bytes">5\.0 TiB<\/span><\/td><td>1,234,567<\/td><td><\/td><td class="state ok">ok<\/td><\/tr>/,
  )
})

test('sorted by the column links, filtered by the API parameters, with the totals of those listed', () => {
  const snapshot = snapshotOf(250, 's3', [
    { name: 'never-measured', scanSuccess: false, scanDurationSeconds: 1 },
  ])
  const byName = render(status({ usage: () => snapshot }), { sort: 'name' })
  assert.deepEqual(listed(byName).slice(0, 3), ['bucket-0000', 'bucket-0001', 'bucket-0002'])
  // The active column links to the other order; the others to their natural one.
  assert.match(
    byName,
    /<th aria-sort="ascending"><a href="\/\?sort=name&#38;order=desc" data-sort="name">Bucket ▲<\/a><\/th>/,
  )
  assert.match(byName, /<a href="\/" data-sort="bytes">Size<\/a>/)
  assert.match(byName, /<a href="\/\?sort=objects" data-sort="objects">Objects<\/a>/)
  const matched = render(status({ usage: () => snapshot }), {
    match: 'bucket-00[0-4]?',
    sort: 'objects',
    order: 'asc',
  })
  assert.deepEqual(
    listed(matched),
    Array.from({ length: 50 }, (_, index) => `bucket-${String(index).padStart(4, '0')}`),
  )
  assert.match(matched, /<caption>Buckets 1 to 50 of 50 matching \(of 251\)\.<\/caption>/)
  // 1 + 2 + ... + 50 KiB in as many objects.
  assert.match(
    matched,
    /<tfoot><tr class="totals"><th scope="row">All matching: 50 bucket\(s\)<\/th><td><span class="size" title="1,305,600 bytes">1\.2 MiB<\/span><\/td><td>1,275<\/td>/,
  )
  assert.match(matched, /<input name="match" value="bucket-00\[0-4\]\?"/)
  assert.match(
    matched,
    /<a href="\/api\/v1\/buckets\?sort=objects&#38;order=asc&#38;match=bucket-00%5B0-4%5D%3F">/,
  )
  assert.match(
    render(status({ usage: () => snapshot }), { prefix: 'never' }),
    /<td class="note">not measured<\/td>/,
  )
  const all = render(status({ usage: () => snapshot }))
  assert.match(
    all,
    /<th scope="row">All: 251 bucket\(s\)<\/th><td><span class="size" title="32,128,000 bytes">30\.6 MiB<\/span><\/td><td>31,375<\/td>/,
  )
  // A blank field of the form asks for no filter.
  assert.equal(listed(render(status({ usage: () => snapshot }), { match: '', prefix: '' })).length, 100)
})

test('a malformed glob is refused where the list would be, the form keeping it to correct', () => {
  const page = render(status({ usage: () => snapshotOf(3) }), { match: '[ab' })
  assert.match(
    page,
    /<p class="problem" id="query-problem">Not listed: match: unterminated \[ in &#34;\[ab&#34;\./,
  )
  assert.match(page, /<input name="match" value="\[ab"/)
  assert.deepEqual(listed(page), [])
  assert.match(render(status({ usage: () => snapshotOf(0) })), /<caption>No buckets\.<\/caption>/)
  assert.match(
    render(status({ usage: () => snapshotOf(3) }), { match: 'x*' }),
    /<caption>No bucket matches\.<\/caption>/,
  )
})

test('rgw gives no object times: its newest-object column says so and why', () => {
  const page = render(status({ usage: () => snapshotOf(2, 'rgw') }))
  assert.match(page, /<tr data-bucket="bucket-0001">.*<td><span class="note">not given<\/span><\/td>/)
  assert.match(
    page,
    /id="newest-note">Newest object: not given by the <code>rgw<\/code> source\. RGW&#39;s admin API/,
  )
  assert.doesNotMatch(render(status({ usage: () => snapshotOf(2, 's3') })), /newest-note|not given/)
})

test('store-given names are escaped and secrets blanked, in the list and the treemap alike', () => {
  const hostile = `<img src=x onerror=alert(1)>"${SECRET}'`
  const snapshot = snapshotOf(2, 's3', [
    {
      name: hostile,
      usage: {
        bytes: 10 * 1024 ** 2,
        objects: 3,
        prefixes: {
          rows: [{ prefix: `<b>${SECRET}/`, bytes: 1024 ** 2, objects: 1 }],
          capacity: 80,
          errorBytes: 0,
          cut: false,
        },
      },
      scanSuccess: true,
      scanDurationSeconds: 1,
    },
  ])
  const page = render(status({ usage: () => snapshot }))
  assert.ok(!page.includes(SECRET), 'a secret on the page')
  assert.ok(!page.includes('<img') && !page.includes('<b>'), 'markup from the store on the page')
  assert.match(page, /<tr data-bucket="&#60;img src=x onerror=alert\(1\)&#62;&#34;\[redacted\]&#39;">/)
  assert.match(
    page,
    /<g class="bucket" data-bucket="&#60;img src=x onerror=alert\(1\)&#62;&#34;\[redacted\]&#39;"/,
  )
  assert.match(page, /<title>&#60;img[^<]*\[redacted\][^<]*, prefix &#60;b&#62;\[redacted\]\/: 1\.0 MiB/)
})

test('a running round shows how far it got: buckets done of all, objects, bytes, rate, what is measured', () => {
  const view = {
    source: 's3',
    startedAtMs: Date.UTC(2026, 0, 1, 0, 0),
    phase: 'measuring' as const,
    buckets: 53,
    bucketsDone: 41,
    failed: 1,
    objects: 18_204_512,
    bytes: 7 * 1024 ** 4,
    requests: 18_311,
    elapsedSeconds: 300,
    objectsPerSecond: 60_681.7,
    inProgress: ['archive-2024', `x-${SECRET}`, '<b>'],
    inProgressCount: 5,
  }
  const page = render(status({ scanProgress: () => view }))
  assert.match(
    page,
    /<p id="scan-progress">A scan is running: started <time datetime="2026-01-01T00:00:00Z">2026-01-01T00:00:00Z<\/time> \(5 min ago\)\. <progress value="41" max="53"><\/progress> 41 of 53 buckets · 1 failed · 18,204,512 objects · 7\.0 TiB · 60,682 objects\/s · 18,311 requests; measuring <code>archive-2024<\/code>, <code>x-\[redacted\]<\/code>, <code>&#60;b&#62;<\/code> and 2 more\.<\/p>/,
  )
  assert.doesNotMatch(page, /A scan is running now\./)
  // While the buckets are listed there is no total: an indeterminate bar.
  const listing = render(
    status({
      scanProgress: () => ({
        ...view,
        phase: 'listing',
        buckets: undefined,
        bucketsDone: 0,
        failed: 0,
        inProgress: [],
        inProgressCount: 0,
      }),
    }),
  )
  assert.match(listing, /<progress><\/progress> listing buckets · 18,204,512 objects/)
  assert.doesNotMatch(listing, /measuring/)
})
