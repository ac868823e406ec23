import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { type GateVerdict, type S3Gate, startS3Gate } from '../support/s3-gate.js'
import type { S3Request } from '../support/s3-requests.js'
import { fillBucket, type ObjectSpec, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { scratchFolder } from '../support/scratch.js'
import {
  assertCleanExit,
  openResources,
  type ServingProcess,
  startServingProcess,
} from '../support/serving-process.js'
import { waitFor } from '../support/wait-for.js'

/**
 * S3 endpoint faults, each against real processes on loopback: s3rver (child process), the test
 * gate in front of it injecting the fault on the wire, and the exporter's real entry point with
 * strict rejections, scanning every second. Each test: a good scan, then the fault for several
 * scans (the last good figures served and flagged, open descriptors and resources stable), then
 * the endpoint heals and the exporter recovers by itself, then SIGTERM: exit code 0, nothing
 * unexpected on stderr.
 */

const BUCKETS = ['empty', 'many', 'photos'] as const
const PHOTOS: ObjectSpec[] = [
  { key: 'a.jpg', size: 2_500_000 },
  { key: 'b.jpg', size: 700_000 },
  { key: 'c.png', size: 1_023 },
]
/** Two listing pages (s3rver pages at 1,000 keys). */
const MANY: ObjectSpec[] = Array.from({ length: 1_050 }, (_, index) => ({
  key: `log/${String(index).padStart(5, '0')}.txt`,
  size: (index * 37) % 5_000,
}))
const BYTES = {
  empty: 0,
  many: MANY.reduce((sum, object) => sum + object.size, 0),
  photos: PHOTOS.reduce((sum, object) => sum + object.size, 0),
}

/** Failed scans between the two resource counts: a leak of one descriptor per scan shows above the slack. */
const FAILED_SCANS_MEASURED = 6
/**
 * Descriptors and resources may differ by this much between two moments of the same failing
 * state: kept-alive sockets to the endpoint (at most SCAN_CONCURRENCY) come and go, and a
 * scrape's own connection.
 */
const SLACK = 4

let s3: S3rverProcess
before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, 'photos', PHOTOS)
  await fillBucket(s3.client, 'many', MANY)
  await fillBucket(s3.client, 'empty', [])
})
after(() => s3?.stop())

interface ScanLine {
  readonly buckets: number
  readonly failed: number
  readonly sourceUp: boolean
}

/** An exporter process reading s3rver through a gate, and how a test follows its scans. */
interface FaultRun {
  readonly gate: S3Gate
  readonly exporter: ServingProcess
  /** Scans finished so far (the scanner's debug line after each). */
  scans(): ScanLine[]
  /** Waits for `count` more scans after `since` satisfying `matches`; returns the last. */
  waitForScans(since: number, count: number, matches: (scan: ScanLine) => boolean): Promise<ScanLine>
  /**
   * Waits (bounded) for a scan after `since` that reached every bucket. Before a fault and after
   * healing, a scan on a busy machine can still pass SCAN_TIMEOUT_SECONDS (2 s here): the test is
   * about the faulty scans, so the good one may be any of the next few.
   */
  waitForGoodScan(since: number): Promise<ScanLine>
}

async function startFaultRun(
  t: { after: (fn: () => void | Promise<void>) => void },
  env: Record<string, string> = {},
): Promise<FaultRun> {
  const gate = await startS3Gate(s3.port)
  t.after(() => gate.close())
  const cwd = await scratchFolder(t, 'objstore-faults-s3-')
  const exporter = await startServingProcess(
    t,
    {
      ...s3.exporterEnv,
      S3_ENDPOINT: gate.endpoint,
      DATA_DIR: cwd,
      SCAN_INTERVAL_SECONDS: '1',
      SCAN_TIMEOUT_SECONDS: '2',
      SCAN_CONCURRENCY: '2',
      LOG_LEVEL: 'debug',
      ...env,
    },
    cwd,
  )
  const scans = () =>
    exporter
      .logs()
      .filter((line) => line.msg === 'usage scan finished')
      .map((line) => line as unknown as ScanLine)
  return {
    gate,
    exporter,
    scans,
    async waitForScans(since, count, matches) {
      const lines = await exporter.waitForLogs(
        `${count} scans after scan ${since}`,
        (line) => line.msg === 'usage scan finished',
        since + count,
        60_000,
      )
      const wanted = lines.slice(since).map((line) => line as unknown as ScanLine)
      const last = wanted.at(-1) as ScanLine
      assert.ok(
        wanted.slice(0, count).every(matches),
        `every scan as expected: ${JSON.stringify(wanted.slice(0, count))}`,
      )
      return last
    },
    async waitForGoodScan(since) {
      const good = (scan: ScanLine) => scan.sourceUp && scan.failed === 0
      await waitFor(`a good scan after scan ${since}`, () => scans().slice(since).some(good), {
        timeoutMs: 60_000,
      })
      return scans().slice(since).find(good) as ScanLine
    },
  }
}

function bytesOf(scrape: ParsedExposition, bucket: string): number {
  return sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket })
}

function lastSuccessOf(scrape: ParsedExposition, bucket: string): number {
  return sampleValue(scrape, 'objstore_bucket_scan_last_success_timestamp_seconds', { bucket })
}

/** The figures of a good scan: every bucket measured, exactly. */
function assertAllGood(scrape: ParsedExposition): void {
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), 1)
  for (const bucket of BUCKETS) {
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }), 1, `${bucket} success`)
    assert.equal(bytesOf(scrape, bucket), BYTES[bucket], `${bucket} bytes`)
  }
}

/**
 * The fault's scrape: `failing` buckets flagged (success 0) with the last good figures and
 * their last-success time unchanged since `good` (unless `measuredSince`); the others measured;
 * source_up as given.
 */
function assertFlagged(
  scrape: ParsedExposition,
  good: ParsedExposition,
  failing: readonly string[],
  sourceUp: 0 | 1,
  measuredSince: readonly string[] = [],
): void {
  assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 's3' }), sourceUp, 'source_up')
  for (const bucket of BUCKETS) {
    const fails = failing.includes(bucket)
    assert.equal(sampleValue(scrape, 'objstore_bucket_scan_success', { bucket }), fails ? 0 : 1, bucket)
    assert.equal(bytesOf(scrape, bucket), BYTES[bucket], `${bucket}: the last good figures are served`)
    if (fails && !measuredSince.includes(bucket))
      assert.equal(lastSuccessOf(scrape, bucket), lastSuccessOf(good, bucket), `${bucket} stamp`)
  }
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'usage' }), 1)
}

/**
 * The common shape of a fault test: a good first scan; `inject`; two scans in the fault, then
 * FAILED_SCANS_MEASURED more between two counts of open descriptors and resources; the fault's
 * scrape checked by `whileFailing`; `heal`; recovery checked; a clean exit.
 */
async function faultCycle(
  t: { diagnostic: (message: string) => void },
  run: FaultRun,
  fault: {
    readonly inject: () => void | Promise<void>
    readonly isFaultyScan: (scan: ScanLine) => boolean
    readonly whileFailing: (scrape: ParsedExposition, good: ParsedExposition) => void
    readonly heal: () => void | Promise<void>
  },
): Promise<void> {
  const first = await run.waitForGoodScan(0)
  assert.equal(first.buckets, 3)
  const good = await run.exporter.scrape()
  assertAllGood(good)

  await fault.inject()
  // The scan running when the fault came may have finished before it; the next two begin in it.
  const injectedAt = run.scans().length + 1
  await run.waitForScans(injectedAt, 2, fault.isFaultyScan)
  const before = openResources(await run.exporter.scrape())
  await run.waitForScans(injectedAt + 2, FAILED_SCANS_MEASURED, fault.isFaultyScan)
  const failing = await run.exporter.scrape()
  const after = openResources(failing)
  fault.whileFailing(failing, good)
  assert.ok(after.fds <= before.fds + SLACK, `open descriptors stable: ${before.fds} -> ${after.fds}`)
  assert.ok(
    after.resources <= before.resources + SLACK,
    `active resources stable: ${before.resources} -> ${after.resources}`,
  )
  for (const path of ['/healthz', '/readyz']) {
    assert.equal((await fetch(`${run.exporter.baseUrl}${path}`)).status, 200, `${path} while failing`)
  }

  await fault.heal()
  const healedAt = run.scans().length + 1
  await run.waitForGoodScan(healedAt)
  const recovered = await run.exporter.scrape()
  assertAllGood(recovered)
  for (const bucket of BUCKETS) assert.ok(lastSuccessOf(recovered, bucket) > lastSuccessOf(good, bucket))
  await assertCleanExit(run.exporter)
  t.diagnostic(
    `over ${FAILED_SCANS_MEASURED} failed scans: open fds ${before.fds} -> ${after.fds}, ` +
      `active resources ${before.resources} -> ${after.resources}`,
  )
}

const everything = (verdict: GateVerdict) => () => verdict
const sourceDown = (scan: ScanLine) => !scan.sourceUp && scan.failed === 3
const logged = (run: FaultRun, msg: string) => run.exporter.logs().filter((line) => line.msg === msg)

/** Down and back are each logged once, however many scans fail in between. */
function assertDownLoggedOnce(run: FaultRun, error: RegExp): void {
  const down = logged(run, 'usage source unreachable')
  assert.equal(down.length, 1, 'the outage is logged once')
  assert.match(String(down[0]?.error), error)
  assert.equal(logged(run, 'usage source reachable again').length, 1)
}

test('refused connections: last figures flagged, source_up 0, recovers when the endpoint listens again', async (t) => {
  const run = await startFaultRun(t)
  await faultCycle(t, run, {
    inject: () => run.gate.refuse(),
    isFaultyScan: sourceDown,
    whileFailing: (scrape, good) => assertFlagged(scrape, good, BUCKETS, 0),
    heal: () => run.gate.reopen(),
  })
  assertDownLoggedOnce(run, /ListBuckets: .*ECONNREFUSED/)
})

test('an endpoint that accepts and never answers: each scan cut off at SCAN_TIMEOUT_SECONDS, nothing piles up', async (t) => {
  const run = await startFaultRun(t)
  await faultCycle(t, run, {
    inject: () => {
      run.gate.policy = everything('hang')
    },
    isFaultyScan: sourceDown,
    whileFailing: (scrape, good) => {
      assertFlagged(scrape, good, BUCKETS, 0)
      // Each cut-off request closed its connection: none is left held at the gate.
      assert.ok(run.gate.heldCount <= 1, `requests held open at the endpoint: ${run.gate.heldCount}`)
    },
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  assertDownLoggedOnce(run, /^buckets not listed within SCAN_TIMEOUT_SECONDS \(2 s\)$/)
})

test('an endpoint answering slowly: scans complete with exact figures, scrapes served meanwhile', async (t) => {
  const run = await startFaultRun(t, { SCAN_TIMEOUT_SECONDS: '60' })
  await run.waitForScans(0, 1, (scan) => scan.sourceUp && scan.failed === 0)
  const good = await run.exporter.scrape()
  // Every answer trickles back in 5 pieces 100 ms apart: half a second a request at least.
  run.gate.policy = everything({ slow: { chunks: 5, gapMs: 100 } })
  const slowFrom = run.gate.seen.length
  const startedAt = run.scans().length + 1
  const slowScans = run.waitForScans(startedAt, 3, (scan) => scan.sourceUp && scan.failed === 0)
  // Scrapes while slow answers are in flight are served from the last snapshot, whole.
  let scrapesDuring = 0
  let finished = false
  void slowScans.finally(() => {
    finished = true
  })
  while (!finished && scrapesDuring < 1000) {
    assertAllGood(await run.exporter.scrape())
    scrapesDuring++
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await slowScans
  assert.ok(scrapesDuring > 0)
  const slowRequests = run.gate.seen.slice(slowFrom).filter((request) => request.verdict === 'slow')
  assert.ok(slowRequests.length >= 9, `slow answers: ${slowRequests.length}`)
  const after = await run.exporter.scrape()
  assertAllGood(after)
  assert.ok(lastSuccessOf(after, 'photos') > lastSuccessOf(good, 'photos'))
  assert.equal(logged(run, 'bucket scan failed').length, 0)
  assert.equal(logged(run, 'usage source unreachable').length, 0)
  await assertCleanExit(run.exporter)
})

for (const [status, code, what] of [
  [500, 'InternalError', 'retried, then flagged with source_up 0'],
  [503, 'SlowDown', 'retried with backoff, then flagged with source_up 0'],
] as const) {
  test(`${status} ${code} on every request: ${what}; recovers`, async (t) => {
    const run = await startFaultRun(t)
    await faultCycle(t, run, {
      inject: () => {
        run.gate.policy = everything({ status, code })
      },
      isFaultyScan: sourceDown,
      whileFailing: (scrape, good) => assertFlagged(scrape, good, BUCKETS, 0),
      heal: () => {
        run.gate.policy = everything('forward')
      },
    })
    assertDownLoggedOnce(run, new RegExp(`ListBuckets: ${code} \\(HTTP ${status}\\)`))
    // Every scan wholly in the outage tried ListBuckets four times (the first try, three retries).
    const attempts = run.gate.seen.filter(
      (request) => request.verdict === code && request.operation === 'ListBuckets',
    )
    const scansDown = run.scans().filter(sourceDown).length
    assert.ok(attempts.length >= 4 * (scansDown - 1), `${attempts.length} attempts in ${scansDown} scans`)
  })
}

/** Half of a document: XML that ends in the middle of an element. */
const halfDocument = (body: string) => ({ status: 200, body: body.slice(0, Math.floor(body.length / 2)) })
/** A proxy's HTML error page with a 200 status where the listing should be. */
const htmlPage = () => ({ status: 200, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' })

test('malformed XML: the buckets whose listings cannot be parsed fail alone, without retries; recover', async (t) => {
  const run = await startFaultRun(t)
  const malformed = (request: S3Request): GateVerdict => {
    if (request.operation !== 'ListObjectsV2') return 'forward'
    if (request.bucket === 'photos') return { rewrite: halfDocument }
    if (request.bucket === 'many' && request.query.has('continuation-token')) return { rewrite: htmlPage }
    return 'forward'
  }
  await faultCycle(t, run, {
    inject: () => {
      run.gate.policy = malformed
    },
    isFaultyScan: (scan) => scan.sourceUp && scan.failed === 2,
    whileFailing: (scrape, good) => assertFlagged(scrape, good, ['many', 'photos'], 1),
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  const failures = logged(run, 'bucket scan failed')
  assert.deepEqual(failures.map((line) => line.bucket).sort(), ['many', 'photos'], 'each logged once')
  for (const failure of failures) assert.equal(failure.kind, 'failed')
  const photosRequests = run.gate.seen.filter((r) => r.bucket === 'photos' && r.verdict === 'rewrite')
  const scansInFault = FAILED_SCANS_MEASURED + 2
  assert.ok(photosRequests.length <= scansInFault + 2, 'one request a scan: a parse error is not retried')
})

test('a bucket listing answered with an empty 200 body: source_up 0, every bucket kept and flagged; recovers', async (t) => {
  const run = await startFaultRun(t)
  await faultCycle(t, run, {
    inject: () => {
      run.gate.policy = (request) =>
        request.operation === 'ListBuckets' ? { rewrite: () => ({ status: 200, body: '' }) } : 'forward'
    },
    isFaultyScan: sourceDown,
    // Not "no buckets": the buckets stay, with their last figures.
    whileFailing: (scrape, good) => assertFlagged(scrape, good, BUCKETS, 0),
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  assertDownLoggedOnce(run, /ListBuckets: the answer holds no listing/)
})

test('truncated pagination (IsTruncated without a continuation token): the bucket fails, no loop; recovers', async (t) => {
  const run = await startFaultRun(t)
  const withoutToken = (body: string, status: number) => ({
    status,
    body: body.replace(/<NextContinuationToken>[^<]*<\/NextContinuationToken>/, ''),
  })
  await faultCycle(t, run, {
    inject: () => {
      run.gate.policy = (request) =>
        request.operation === 'ListObjectsV2' && request.bucket === 'many'
          ? { rewrite: withoutToken }
          : 'forward'
    },
    isFaultyScan: (scan) => scan.sourceUp && scan.failed === 1,
    whileFailing: (scrape, good) => assertFlagged(scrape, good, ['many'], 1),
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  const rewritten = run.gate.seen.filter((request) => request.verdict === 'rewrite')
  assert.ok(
    rewritten.every((request) => !request.query.has('continuation-token')),
    'never asked for a next page it was not told',
  )
  const failure = logged(run, 'bucket scan failed')
  assert.equal(failure.length, 1)
  assert.match(String(failure[0]?.error), /ListObjectsV2 many: the store said the listing continues/)
})

test('credentials revoked in the middle of a scan: measured buckets kept, the rest flagged, then source_up 0; recovers', async (t) => {
  // One bucket at a time, in name order (empty, many, photos): revoked between many's two pages.
  const run = await startFaultRun(t, { SCAN_CONCURRENCY: '1' })
  let revoked = false
  let revokeMidScan = false
  await faultCycle(t, run, {
    inject: () => {
      revokeMidScan = true
      run.gate.policy = (request) => {
        if (
          revokeMidScan &&
          request.operation === 'ListObjectsV2' &&
          request.bucket === 'many' &&
          request.query.has('continuation-token')
        )
          revoked = true
        return revoked ? { status: 403, code: 'InvalidAccessKeyId' } : 'forward'
      }
    },
    isFaultyScan: sourceDown,
    // `empty` was measured once more, before the key was revoked in the middle of that scan.
    whileFailing: (scrape, good) => assertFlagged(scrape, good, BUCKETS, 0, ['empty']),
    heal: () => {
      revokeMidScan = false
      revoked = false
    },
  })
  // The scan during which the key was revoked: empty measured, many and photos denied.
  const midScan = run.scans().find((scan) => scan.failed === 2 && scan.sourceUp)
  assert.ok(midScan, `a scan measured one bucket and lost two: ${JSON.stringify(run.scans())}`)
  const denied = logged(run, 'bucket scan failed')
  assert.deepEqual(denied.map((line) => [line.bucket, line.kind]).sort(), [
    ['many', 'denied'],
    ['photos', 'denied'],
  ])
  assertDownLoggedOnce(run, /ListBuckets: InvalidAccessKeyId \(HTTP 403\)/)
  const deniedListings = run.gate.seen.filter((request) => request.verdict === 'InvalidAccessKeyId')
  assert.equal(
    deniedListings.filter((request) => request.operation === 'ListBuckets').length,
    run.scans().filter(sourceDown).length,
    'a denial is final: one ListBuckets a scan, no retries',
  )
})

/** The bound these runs set: 1 MiB, against pages of a few hundred KB. */
const MAX_RESPONSE_BYTES = 1024 * 1024
/**
 * What an endless answer may write before the exporter closes its connection: the bound, plus
 * what loopback socket buffers hold at both ends (a few MB), never the ~190 MB two seconds of
 * reading an endless body took before the bound.
 */
const WRITTEN_PAST_BOUND = 16 * 1024 * 1024
const MiB = 1024 * 1024
const rssOf = (scrape: ParsedExposition) => sampleValue(scrape, 'process_resident_memory_bytes')

test('answers larger than S3_MAX_RESPONSE_BYTES (a padded page, an endless body): those buckets fail with the reason, memory bounded; recover', async (t) => {
  const run = await startFaultRun(t, { S3_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) })
  // A valid listing page three times the bound (declared by Content-Length): blank padding.
  const padded = (body: string, status: number) => ({
    status,
    body: body.replace('</ListBucketResult>', `${' '.repeat(3 * MAX_RESPONSE_BYTES)}</ListBucketResult>`),
  })
  let goodRss = 0
  let peakRss = 0
  await faultCycle(t, run, {
    inject: async () => {
      goodRss = rssOf(await run.exporter.scrape())
      run.gate.policy = (request) => {
        if (request.operation !== 'ListObjectsV2') return 'forward'
        if (request.bucket === 'photos') return { rewrite: padded }
        // Chunked, no length: only counting what arrives can stop it.
        if (request.bucket === 'many') return { endless: '<?xml version="1.0"?><ListBucketResult>' }
        return 'forward'
      }
    },
    isFaultyScan: (scan) => scan.sourceUp && scan.failed === 2,
    whileFailing: (scrape, good) => {
      assertFlagged(scrape, good, ['many', 'photos'], 1)
      peakRss = Math.max(peakRss, rssOf(scrape))
      assert.ok(run.gate.streamed.length >= FAILED_SCANS_MEASURED, `endless answers: ${run.gate.streamed}`)
      for (const bytes of run.gate.streamed) {
        assert.ok(bytes <= MAX_RESPONSE_BYTES + WRITTEN_PAST_BOUND, `an endless answer read ${bytes} bytes`)
      }
    },
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  const failures = logged(run, 'bucket scan failed')
  assert.deepEqual(failures.map((line) => line.bucket).sort(), ['many', 'photos'], 'each logged once')
  for (const failure of failures) {
    assert.equal(failure.kind, 'failed')
    assert.match(
      String(failure.error),
      new RegExp(
        `^ListObjectsV2 ${failure.bucket}: answer larger than S3_MAX_RESPONSE_BYTES=${MAX_RESPONSE_BYTES} bytes`,
      ),
    )
  }
  // A refused answer is final: one request a scan, not four.
  const photos = run.gate.seen.filter(
    (request) => request.bucket === 'photos' && request.verdict === 'rewrite',
  )
  assert.ok(photos.length <= FAILED_SCANS_MEASURED + 4, `photos requests in the fault: ${photos.length}`)
  // Generous for a noisy machine, yet far below one endless body read for SCAN_TIMEOUT_SECONDS.
  assert.ok(peakRss <= goodRss + 96 * MiB, `resident memory ${goodRss} -> ${peakRss}`)
  t.diagnostic(
    `resident memory ${(goodRss / MiB).toFixed(0)} MiB before, ${(peakRss / MiB).toFixed(0)} MiB in the fault; ` +
      `bytes written per endless answer: max ${Math.max(...run.gate.streamed)}`,
  )
})

test('redirects (301, 307 to another server) are never followed: the bucket fails naming the status; recovers', async (t) => {
  const run = await startFaultRun(t)
  // Another server that would answer (a real listing) and records whether it was asked anything.
  const elsewhere = await startS3Gate(s3.port)
  t.after(() => elsewhere.close())
  await faultCycle(t, run, {
    inject: () => {
      run.gate.policy = (request) => {
        if (request.operation !== 'ListObjectsV2') return 'forward'
        const location = `${elsewhere.endpoint}/${request.bucket}?list-type=2`
        if (request.bucket === 'photos') return { redirect: { status: 301, location } }
        if (request.bucket === 'many') return { redirect: { status: 307, location } }
        return 'forward'
      }
    },
    isFaultyScan: (scan) => scan.sourceUp && scan.failed === 2,
    whileFailing: (scrape, good) => assertFlagged(scrape, good, ['many', 'photos'], 1),
    heal: () => {
      run.gate.policy = everything('forward')
    },
  })
  assert.equal(elsewhere.seen.length, 0, 'the redirect target was never contacted')
  const failures = logged(run, 'bucket scan failed')
  assert.deepEqual(failures.map((line) => [line.bucket, line.kind]).sort(), [
    ['many', 'failed'],
    ['photos', 'failed'],
  ])
  for (const failure of failures) {
    const status = failure.bucket === 'photos' ? 301 : 307
    assert.equal(
      failure.error,
      `ListObjectsV2 ${failure.bucket}: answered HTTP ${status}, a redirect to ${elsewhere.endpoint}: redirects are not followed`,
    )
  }
})

for (const sizes of [
  { photos: 'abc', empty: '-5' },
  { photos: '1e400', empty: '1.5' },
]) {
  test(`listed sizes that are not byte counts (${sizes.photos}, ${sizes.empty}): those buckets fail, no NaN anywhere; recover`, async (t) => {
    const run = await startFaultRun(t)
    const withSize = (bucket: 'photos' | 'empty') => (body: string, status: number) => ({
      status,
      // `empty` has no object to alter: one is added.
      body:
        bucket === 'empty'
          ? body.replace(
              '</ListBucketResult>',
              `<Contents><Key>x</Key><LastModified>2026-12-01T00:00:00.000Z</LastModified><Size>${sizes.empty}</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>`,
            )
          : body.replace(/<Size>[^<]*<\/Size>/, `<Size>${sizes.photos}</Size>`),
    })
    await faultCycle(t, run, {
      inject: () => {
        run.gate.policy = (request) =>
          request.operation === 'ListObjectsV2' && (request.bucket === 'photos' || request.bucket === 'empty')
            ? { rewrite: withSize(request.bucket) }
            : 'forward'
      },
      isFaultyScan: (scan) => scan.sourceUp && scan.failed === 2,
      whileFailing: (scrape, good) => {
        assertFlagged(scrape, good, ['empty', 'photos'], 1)
        assert.equal(
          sampleValue(scrape, 'objstore_cluster_usage_total_bytes'),
          BYTES.empty + BYTES.many + BYTES.photos,
          'the cluster total: the last good figures, a number',
        )
      },
      heal: () => {
        run.gate.policy = everything('forward')
      },
    })
    const failures = logged(run, 'bucket scan failed')
    assert.deepEqual(failures.map((line) => [line.bucket, line.kind]).sort(), [
      ['empty', 'failed'],
      ['photos', 'failed'],
    ])
    // As the SDK read them (Number()): abc is NaN, 1e400 Infinity.
    const shown = (text: string) => String(Number(text))
    for (const failure of failures) {
      const size = failure.bucket === 'photos' ? sizes.photos : sizes.empty
      assert.equal(
        failure.error,
        `ListObjectsV2 ${failure.bucket}: an object's <Size> is ${shown(size)}, not a whole number of bytes from 0 to 2^53-1`,
      )
    }
  })
}
