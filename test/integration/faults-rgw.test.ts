import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client, rgwSourceEnv, ScenarioWriter } from '../support/rgw-scenario.js'
import { type GateVerdict, type S3Gate, startS3Gate } from '../support/s3-gate.js'
import { scratchFolder } from '../support/scratch.js'
import {
  assertCleanExit,
  openResources,
  type ServingProcess,
  startServingProcess,
} from '../support/serving-process.js'

/**
 * BUCKETS_SOURCE=rgw against hostile answers of its admin API: a real Ceph RGW, the test gate in
 * front of it injecting the fault on the wire, and the exporter's real entry point scanning every
 * second. Each test: a good scan, the fault for several scans (scrapes served, descriptors
 * stable), the endpoint heals and the exporter recovers by itself, then a clean exit.
 */

const SIZES = { alpha: 1_000, beta: 20_000, gamma: 300 } as const
type Bucket = keyof typeof SIZES
const BUCKETS = Object.keys(SIZES) as Bucket[]
const MAX_RESPONSE_BYTES = 1024 * 1024
/** The bound plus what loopback socket buffers hold at both ends; never seconds of an endless body. */
const WRITTEN_PAST_BOUND = 16 * 1024 * 1024
const ADMIN_STATS = 'GET /admin/bucket'

describe('rgw source against hostile admin API answers', { timeout: 10 * 60_000 }, () => {
  let cluster: RgwCluster
  before(async () => {
    cluster = await startRgwCluster()
    const writer = new ScenarioWriter(rgwS3Client(cluster))
    for (const bucket of BUCKETS) {
      await writer.createBucket(bucket)
      await writer.put(bucket, 'object', SIZES[bucket])
    }
    writer.s3.destroy()
  })
  after(() => cluster?.stop())

  interface Run {
    readonly gate: S3Gate
    readonly exporter: ServingProcess
    /** Waits for `count` scans after those seen so far; each must match. */
    scans(count: number, matches: (scan: ScanLine) => boolean): Promise<void>
    logged(msg: string): Array<Record<string, unknown>>
  }
  interface ScanLine {
    readonly failed: number
    readonly sourceUp: boolean
  }

  async function startRun(
    t: { after: (fn: () => void | Promise<void>) => void },
    env: Record<string, string> = {},
  ): Promise<Run> {
    const gate = await startS3Gate(Number(new URL(cluster.endpoint).port))
    t.after(() => gate.close())
    const cwd = await scratchFolder(t, 'objstore-faults-rgw-')
    const exporter = await startServingProcess(
      t,
      rgwSourceEnv({ ...cluster, endpoint: gate.endpoint }, 'rgw', {
        DATA_DIR: cwd,
        SCAN_INTERVAL_SECONDS: '1',
        SCAN_TIMEOUT_SECONDS: '2',
        LOG_LEVEL: 'debug',
        ...env,
      }),
      cwd,
    )
    const logged = (msg: string) => exporter.logs().filter((line) => line.msg === msg)
    return {
      gate,
      exporter,
      logged,
      async scans(count, matches) {
        const since = logged('usage scan finished').length
        const lines = await exporter.waitForLogs(
          `${count} more scans`,
          (line) => line.msg === 'usage scan finished',
          since + count + 1,
          60_000,
        )
        // The first may have begun before the fault: the next `count` are wholly in it.
        const wanted = lines.slice(since + 1).map((line) => line as unknown as ScanLine)
        assert.ok(wanted.every(matches), `every scan as expected: ${JSON.stringify(wanted)}`)
      },
    }
  }

  const success = (scrape: ParsedExposition, bucket: string) =>
    sampleValue(scrape, 'objstore_bucket_scan_success', { bucket })
  const bytes = (scrape: ParsedExposition, bucket: string) =>
    sampleValue(scrape, 'objstore_bucket_usage_total_bytes', { bucket })

  /** Every bucket flagged (`failing`) or measured, each with its exact figures, source_up as given. */
  function assertScrape(scrape: ParsedExposition, failing: readonly Bucket[], sourceUp: 0 | 1): void {
    assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'rgw' }), sourceUp, 'source_up')
    for (const bucket of BUCKETS) {
      assert.equal(success(scrape, bucket), failing.includes(bucket) ? 0 : 1, `${bucket} success`)
      assert.equal(bytes(scrape, bucket), SIZES[bucket], `${bucket}: exact or last good figures`)
    }
    assert.equal(
      sampleValue(scrape, 'objstore_cluster_usage_total_bytes'),
      SIZES.alpha + SIZES.beta + SIZES.gamma,
    )
  }

  /** Good scans, then each fault for several scans, then healed; descriptors stable; a clean exit. */
  async function cycle(
    run: Run,
    faults: ReadonlyArray<{ readonly verdict: GateVerdict; readonly failing: Bucket[] }>,
  ): Promise<{ fds: [number, number] }> {
    await run.scans(1, (scan) => scan.sourceUp && scan.failed === 0)
    assertScrape(await run.exporter.scrape(), [], 1)
    let fds: [number, number] = [0, 0]
    for (const fault of faults) {
      const sourceUp = fault.failing.length < BUCKETS.length
      const faulty = (scan: ScanLine) => scan.sourceUp === sourceUp && scan.failed === fault.failing.length
      run.gate.policy = (request) => (request.operation === ADMIN_STATS ? fault.verdict : 'forward')
      await run.scans(2, faulty)
      const before = openResources(await run.exporter.scrape()).fds
      await run.scans(4, faulty)
      const scrape = await run.exporter.scrape()
      assertScrape(scrape, fault.failing, sourceUp ? 1 : 0)
      fds = [before, openResources(scrape).fds]
      assert.ok(fds[1] <= fds[0] + 4, `open descriptors stable: ${fds[0]} -> ${fds[1]}`)
    }
    run.gate.policy = () => 'forward'
    await run.scans(1, (scan) => scan.sourceUp && scan.failed === 0)
    assertScrape(await run.exporter.scrape(), [], 1)
    await assertCleanExit(run.exporter)
    return { fds }
  }

  it('an endless or oversized admin answer: the scan fails with RGW_MAX_RESPONSE_BYTES named, memory bounded; recovers', async (t) => {
    const run = await startRun(t, { RGW_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) })
    // Valid JSON, three times the bound, its length declared.
    const padded = (body: string, status: number) => ({
      status,
      body: `${body}${' '.repeat(3 * MAX_RESPONSE_BYTES)}`,
    })
    const { fds } = await cycle(run, [
      { verdict: { endless: '[' }, failing: BUCKETS },
      { verdict: { rewrite: padded }, failing: BUCKETS },
    ])
    assert.ok(run.gate.streamed.length >= 6, `endless answers: ${run.gate.streamed}`)
    for (const written of run.gate.streamed) {
      assert.ok(written <= MAX_RESPONSE_BYTES + WRITTEN_PAST_BOUND, `an endless answer read ${written} bytes`)
    }
    const down = run.logged('usage source unreachable')
    assert.equal(down.length, 1, 'the outage is logged once')
    assert.equal(
      down[0]?.error,
      `RGW admin API bucket stats: answer larger than RGW_MAX_RESPONSE_BYTES=${MAX_RESPONSE_BYTES} bytes: not read further`,
    )
    t.diagnostic(`max bytes written per endless answer: ${Math.max(...run.gate.streamed)}; fds ${fds}`)
  })

  it('redirects (301, 307 to another server) are never followed: the scan fails naming the status; recovers', async (t) => {
    const run = await startRun(t)
    // Another server in front of the same cluster: it would answer with real stats if asked.
    const elsewhere = await startS3Gate(Number(new URL(cluster.endpoint).port))
    t.after(() => elsewhere.close())
    const to = (status: number): GateVerdict => ({
      redirect: { status, location: `${elsewhere.endpoint}/admin/bucket?format=json&stats=true` },
    })
    await cycle(run, [
      { verdict: to(301), failing: BUCKETS },
      { verdict: to(307), failing: BUCKETS },
    ])
    assert.equal(elsewhere.seen.length, 0, 'the redirect target was never contacted')
    // Logged once per distinct reason: the 301s, then the 307s.
    assert.deepEqual(
      run.logged('usage source unreachable').map((line) => line.error),
      [301, 307].map(
        (status) =>
          `RGW admin API bucket stats: answered HTTP ${status}, a redirect to ${elsewhere.endpoint}: redirects are not followed`,
      ),
    )
  })

  it('figures that are not counts (a 1e400 size, an "abc" quota) fail those buckets alone; the others measured', async (t) => {
    const run = await startRun(t)
    // Written as raw JSON text: JSON.stringify cannot write 1e400.
    const altered = (body: string, status: number) => {
      const stats = JSON.parse(body) as Array<Record<string, unknown>>
      for (const entry of stats) {
        const usage = entry.usage as Record<string, Record<string, unknown>>
        if (entry.bucket === 'alpha' && usage['rgw.main']) usage['rgw.main'].size = '@1e400@'
        if (entry.bucket === 'beta') entry.bucket_quota = { enabled: true, max_size: 'abc', max_objects: -1 }
      }
      return { status, body: JSON.stringify(stats).replace('"@1e400@"', '1e400') }
    }
    await cycle(run, [{ verdict: { rewrite: altered }, failing: ['alpha', 'beta'] }])
    const failures = run.logged('bucket scan failed')
    assert.deepEqual(failures.map((line) => line.bucket).sort(), ['alpha', 'beta'])
    const error = (bucket: string) => String(failures.find((line) => line.bucket === bucket)?.error)
    assert.match(
      error('alpha'),
      /^RGW admin API bucket stats: \[\d+\]\(alpha\)\.usage\.rgw\.main\.size: expected a whole number from 0 to 2\^53-1, got Infinity$/,
    )
    assert.match(
      error('beta'),
      /^RGW admin API bucket stats: \[\d+\]\(beta\)\.bucket_quota\.max_size: expected a whole number from 0 to 2\^53-1, got "abc"$/,
    )
  })
})
