import { readdirSync } from 'node:fs'
import { Agent, get } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { benchBuild } from './support/build.js'
import { residentMb, startExporterChild } from './support/exporter-child.js'
import { median, report } from './support/report.js'
import { createUsageState } from './support/usage-state.js'

/**
 * Soak (issue 11): the built exporter on 1,000 bucket folders scanned every second (a new
 * snapshot each time, rendered and compressed anew), scraped every 100 ms as Prometheus scrapes
 * (gzip, OpenMetrics), with one scrape a minute without compression (`Accept-Encoding:
 * identity`, which makes it inflate and hold a text). Resident set, V8 heap used, open file
 * descriptors and active handles are sampled every second after a warm-up; the figures at the
 * start and at the end are the medians over the first and the last window (a minute each on a
 * full run), so one garbage collection more or less does not decide. Passes when none grew by
 * 10% or more (fds and handles: or by 2 at most), and every scrape was answered 200.
 *
 * Not part of `npm run bench` (it runs 10 minutes): `npm run bench -- soak`, or
 * `npm run bench -- soak --minutes 2` for a shorter run.
 */

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' } }, strict: false })
const minutes = Number(values.minutes)
if (!(minutes > 0)) throw new Error(`--minutes: a positive number expected, got ${String(values.minutes)}`)

const BUCKETS = 1000
const SCRAPE_EVERY_MS = 100
const IDENTITY_EVERY_MS = 60_000
const SAMPLE_EVERY_MS = 1000
const TOTAL_MS = minutes * 60_000
/** Start-up, the first scans and the heap settling; then the start window, and the end window. */
const WARM_UP_MS = Math.min(60_000, TOTAL_MS / 5)
const WINDOW_MS = Math.min(60_000, (TOTAL_MS - WARM_UP_MS) / 3)
const MAX_GROWTH = 0.1
const COUNT_SLACK = 2

const PROMETHEUS = {
  Accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
  'Accept-Encoding': 'gzip',
}
const IDENTITY = { Accept: 'text/plain;version=0.0.4', 'Accept-Encoding': 'identity' }

interface Sample {
  readonly atMs: number
  readonly rssMb: number
  readonly heapMb: number
  readonly fds: number
  readonly handles: number
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

function scrape(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent, headers, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const body = Buffer.concat(chunks)
        const length = Number(response.headers['content-length'])
        if (body.length !== length) reject(new Error(`a body of ${body.length} bytes, ${length} announced`))
        else resolve({ status: response.statusCode ?? 0, body })
      })
      response.on('error', reject)
    })
    request.on('timeout', () => request.destroy(new Error('scrape timed out')))
    request.on('error', reject)
  })
}

/** Sum of a family's samples in an exposition (over its labels). */
function total(text: string, name: string): number {
  let sum = 0
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    sum += Number(match[1])
  }
  return sum
}

const build = benchBuild()
process.stdout.write(`generating ${BUCKETS} bucket folders ...\n`)
const state = await createUsageState({ buckets: BUCKETS, objectsPerBucket: 10, filesPerBucket: 2 })
try {
  const exporter = await startExporterChild(build, {
    DATA_DIR: state.dataDir,
    STATE_FILE: state.stateFile,
    SCAN_INTERVAL_SECONDS: '1',
  })
  const url = `${exporter.baseUrl}/metrics`
  const samples: Sample[] = []
  const statuses = new Map<number, number>()
  let scrapes = 0
  let identityScrapes = 0
  let snapshots = 0
  let lastAge = Number.POSITIVE_INFINITY
  try {
    process.stdout.write(
      `soak: ${minutes} min, ${BUCKETS} buckets scanned every second, a scrape every ${SCRAPE_EVERY_MS} ms, ` +
        `one without compression a minute; warm-up ${WARM_UP_MS / 1000} s, windows ${WINDOW_MS / 1000} s\n`,
    )
    const started = performance.now()
    let nextSample = WARM_UP_MS
    let nextIdentity = 0
    let nextReport = 60_000
    for (let index = 0; ; index++) {
      const due = index * SCRAPE_EVERY_MS
      if (due >= TOTAL_MS) break
      await sleep(Math.max(0, due - (performance.now() - started)))
      const atMs = performance.now() - started
      const identity = atMs >= nextIdentity
      if (identity) nextIdentity += IDENTITY_EVERY_MS
      const response = await scrape(url, identity ? IDENTITY : PROMETHEUS)
      scrapes++
      if (identity) identityScrapes++
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      if (identity || atMs < nextSample) continue
      nextSample += SAMPLE_EVERY_MS
      const text = gunzipSync(response.body).toString('utf8')
      const age = total(text, 'objstore_usage_last_activity_nano_seconds')
      if (age < lastAge) snapshots++
      lastAge = age
      samples.push({
        atMs,
        rssMb: residentMb(exporter.pid, 'VmRSS'),
        heapMb: total(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
        fds: readdirSync(`/proc/${exporter.pid}/fd`).length,
        handles: total(text, 'nodejs_active_handles'),
      })
      if (atMs >= nextReport) {
        nextReport += 60_000
        const last = samples.at(-1) as Sample
        process.stdout.write(
          `  ${(atMs / 60_000).toFixed(0)} min: RSS ${last.rssMb.toFixed(0)} MB, heap ${last.heapMb.toFixed(1)} MB, ` +
            `${last.fds} fds, ${last.handles} handles; ${scrapes} scrapes, ${snapshots} snapshots seen\n`,
        )
      }
    }
  } finally {
    agent.destroy()
    await exporter.close()
  }

  const window = (from: number, to: number) => samples.filter((s) => s.atMs >= from && s.atMs < to)
  const first = window(WARM_UP_MS, WARM_UP_MS + WINDOW_MS)
  const last = window(TOTAL_MS - WINDOW_MS, TOTAL_MS)
  const failed = [...statuses].filter(([status]) => status !== 200).reduce((sum, [, count]) => sum + count, 0)
  // Counts are a few dozen at most: a worker thread or a socket more at the moment of sampling is
  // not growth, so they may also grow by COUNT_SLACK. A leak (one per scrape or per scan) passes
  // thousands in ten minutes.
  const measures = [
    { name: 'RSS', unit: 'MB', pick: (s: Sample) => s.rssMb, digits: 0, slack: 0 },
    { name: 'heap used', unit: 'MB', pick: (s: Sample) => s.heapMb, digits: 1, slack: 0 },
    { name: 'open fds', unit: '', pick: (s: Sample) => s.fds, digits: 0, slack: COUNT_SLACK },
    { name: 'active handles', unit: '', pick: (s: Sample) => s.handles, digits: 0, slack: COUNT_SLACK },
  ]
  process.stdout.write(
    `${scrapes} scrapes (${identityScrapes} without compression), ${failed} not 200, ${snapshots} snapshots seen; ` +
      `${first.length} and ${last.length} samples in the start and end windows\n`,
  )
  report(
    measures.map(({ name, unit, pick, digits, slack }) => {
      const start = median(first.map(pick))
      const end = median(last.map(pick))
      const show = (value: number) => `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`
      return {
        name: `soak ${minutes} min: ${name}`,
        figure: `end ${show(end)}`,
        baseline: `start ${show(start)}`,
        ratio: end / start,
        target: `< ${(1 + MAX_GROWTH).toFixed(2)}x${slack ? ` or +${slack}` : ''}, every scrape 200`,
        pass:
          (end < start * (1 + MAX_GROWTH) || end <= start + slack) &&
          failed === 0 &&
          first.length > 0 &&
          last.length > 0,
      }
    }),
  )
} finally {
  state.remove()
  build.remove()
}
