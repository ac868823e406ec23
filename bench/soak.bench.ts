import { readdirSync } from 'node:fs'
import { Agent, get } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { benchBuild } from './support/build.js'
import { type ExporterChild, residentMb, startExporterChild } from './support/exporter-child.js'
import { median, report } from './support/report.js'
import { createUsageState } from './support/usage-state.js'

/**
 * Soak (issues 11 and 23): the built exporter on 1,000 bucket folders with a STATE_FILE, scanned
 * every second (SCAN_INTERVAL_SECONDS=1, the least it takes: a new snapshot each round, rendered,
 * compressed and saved anew), scraped every 100 ms as Prometheus scrapes (gzip, OpenMetrics), with
 * one scrape a minute without compression (`Accept-Encoding: identity`, which makes it inflate and
 * hold a text), for a number of scan rounds (counted from its "usage scan finished" log lines).
 *
 * - Aborts: a process that ends by itself (issue 23: SIGABRT from a worker thread started and
 *   ended each round, twice in ~1,700 rounds) is counted, its stderr shown, and started again on
 *   the same state file; the soak goes on until the rounds are done. Passes with none.
 * - Worker threads: `worker_threads_started_total` after the warm-up and at the end; passes when
 *   no thread was started after it (threads live as long as the process).
 * - Memory: resident set, V8 heap used, open file descriptors and active handles are sampled every
 *   second after the warm-up; start and end are the medians over the first and the last window, so
 *   one garbage collection more or less does not decide. Passes when none grew by 10% or more
 *   (fds and handles: or by 2 at most), and every scrape was answered 200.
 *
 * Not part of `npm run bench` (a round takes about 1.5 s): `npm run bench -- soak`, 3,000 rounds;
 * `SOAK_ROUNDS=200 npm run bench -- soak` (or `-- soak --rounds 200`) for a shorter run.
 */

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: process.env.SOAK_ROUNDS ?? '3000' } },
  strict: false,
})
const ROUNDS = Number(values.rounds)
if (!Number.isInteger(ROUNDS) || ROUNDS < 20) {
  throw new Error(
    `SOAK_ROUNDS / --rounds: a whole number of at least 20 expected, got ${String(values.rounds)}`,
  )
}

const BUCKETS = 1000
const SCRAPE_EVERY_MS = 100
const IDENTITY_EVERY_MS = 60_000
const SAMPLE_EVERY_MS = 1000
const REPORT_EVERY_ROUNDS = 100
/** Start-up, the first rounds and the heap settling; then the start window, and the end window. */
const WARM_UP_ROUNDS = Math.min(40, Math.floor(ROUNDS / 5))
const WINDOW_ROUNDS = Math.min(40, Math.floor((ROUNDS - WARM_UP_ROUNDS) / 3))
const MAX_GROWTH = 0.1
const COUNT_SLACK = 2
/** A scrape of a process that crashed meanwhile fails: its replacement is up within this. */
const RESTARTS_AT_MOST = 20

const PROMETHEUS = {
  Accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
  'Accept-Encoding': 'gzip',
}
const IDENTITY = { Accept: 'text/plain;version=0.0.4', 'Accept-Encoding': 'identity' }

interface Sample {
  readonly round: number
  readonly rssMb: number
  readonly heapMb: number
  readonly fds: number
  readonly handles: number
}

interface Abort {
  readonly round: number
  readonly how: string
  readonly stderr: string
}

let agent = new Agent({ keepAlive: true, maxSockets: 1 })

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
let rounds = 0
const start = () =>
  startExporterChild(
    build,
    {
      DATA_DIR: state.dataDir,
      STATE_FILE: state.stateFile,
      SCAN_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'info',
      LOG_MODE: 'json',
    },
    { onStdoutLine: (line) => (line.includes('"usage scan finished"') ? rounds++ : undefined) },
  )
try {
  let exporter: ExporterChild = await start()
  const samples: Sample[] = []
  const statuses = new Map<number, number>()
  const aborts: Abort[] = []
  /** worker_threads_started_total after the warm-up, and at the last sample (this process's). */
  let threadsAtWarmUp: number | undefined
  let threadsAtEnd = 0
  let scrapes = 0
  let identityScrapes = 0
  let failedScrapes = 0
  try {
    process.stdout.write(
      `soak: ${ROUNDS} scan rounds of ${BUCKETS} buckets, SCAN_INTERVAL_SECONDS=1, STATE_FILE; a scrape every ` +
        `${SCRAPE_EVERY_MS} ms, one without compression a minute; warm-up ${WARM_UP_ROUNDS} rounds, ` +
        `windows ${WINDOW_ROUNDS} rounds\n`,
    )
    const started = performance.now()
    let nextSample = 0
    let nextIdentity = 0
    let nextReport = REPORT_EVERY_ROUNDS
    for (let index = 0; rounds < ROUNDS; index++) {
      await sleep(Math.max(0, index * SCRAPE_EVERY_MS - (performance.now() - started)))
      const atMs = performance.now() - started
      const identity = atMs >= nextIdentity
      if (identity) nextIdentity += IDENTITY_EVERY_MS
      let response: { status: number; body: Buffer }
      try {
        response = await scrape(`${exporter.baseUrl}/metrics`, identity ? IDENTITY : PROMETHEUS)
      } catch (error) {
        const ended = await Promise.race([exporter.exited, sleep(2000).then(() => undefined)])
        if (!ended) {
          failedScrapes++
          process.stdout.write(`  a scrape failed (the process runs on): ${(error as Error).message}\n`)
          continue
        }
        const how = ended.signal ?? `exit code ${ended.code}`
        aborts.push({ round: rounds, how, stderr: exporter.stderrTail() })
        process.stdout.write(`  ABORT at round ${rounds}: ${how}; started again\n`)
        if (aborts.length > RESTARTS_AT_MOST) throw new Error(`${aborts.length} aborts: the soak stops`)
        agent.destroy()
        agent = new Agent({ keepAlive: true, maxSockets: 1 })
        exporter = await start()
        // Counts of the new process start again: compared from its own warm-up.
        threadsAtWarmUp = undefined
        continue
      }
      scrapes++
      if (identity) identityScrapes++
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      if (identity || atMs < nextSample || response.status !== 200) continue
      nextSample = atMs + SAMPLE_EVERY_MS
      const text = gunzipSync(response.body).toString('utf8')
      const threads = total(text, 'objstore_worker_threads_started_total')
      threadsAtEnd = threads
      if (rounds < WARM_UP_ROUNDS) continue
      threadsAtWarmUp ??= threads
      samples.push({
        round: rounds,
        rssMb: residentMb(exporter.pid, 'VmRSS'),
        heapMb: total(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
        fds: readdirSync(`/proc/${exporter.pid}/fd`).length,
        handles: total(text, 'nodejs_active_handles'),
      })
      if (rounds >= nextReport) {
        nextReport += REPORT_EVERY_ROUNDS
        const last = samples.at(-1) as Sample
        process.stdout.write(
          `  round ${rounds} (${((performance.now() - started) / 60_000).toFixed(1)} min): RSS ${last.rssMb.toFixed(0)} MB, ` +
            `heap ${last.heapMb.toFixed(1)} MB, ${last.fds} fds, ${last.handles} handles; worker threads started ` +
            `${threads}; ${scrapes} scrapes, ${aborts.length} aborts\n`,
        )
      }
    }
    process.stdout.write(`${rounds} rounds in ${((performance.now() - started) / 60_000).toFixed(1)} min\n`)
  } finally {
    agent.destroy()
    await exporter.close()
  }
  const shutdown = await exporter.exited
  for (const abort of aborts)
    process.stdout.write(`abort at round ${abort.round} (${abort.how}):\n${abort.stderr}\n`)

  const window = (from: number, to: number) => samples.filter((s) => s.round >= from && s.round < to)
  const first = window(WARM_UP_ROUNDS, WARM_UP_ROUNDS + WINDOW_ROUNDS)
  const last = window(ROUNDS - WINDOW_ROUNDS, Number.POSITIVE_INFINITY)
  const failed =
    failedScrapes +
    [...statuses].filter(([status]) => status !== 200).reduce((sum, [, count]) => sum + count, 0)
  const cleanExit = shutdown.code === 0
  process.stdout.write(
    `${scrapes} scrapes (${identityScrapes} without compression), ${failed} failed or not 200; ${aborts.length} aborts; ` +
      `shutdown: ${shutdown.signal ?? `exit code ${shutdown.code}`}; ` +
      `${first.length} and ${last.length} samples in the start and end windows\n`,
  )
  // Counts are a few dozen at most: a socket more at the moment of sampling is not growth, so they
  // may also grow by COUNT_SLACK. A leak (one per scrape or per round) passes thousands.
  const measures = [
    { name: 'RSS', unit: 'MB', pick: (s: Sample) => s.rssMb, digits: 0, slack: 0 },
    { name: 'heap used', unit: 'MB', pick: (s: Sample) => s.heapMb, digits: 1, slack: 0 },
    { name: 'open fds', unit: '', pick: (s: Sample) => s.fds, digits: 0, slack: COUNT_SLACK },
    { name: 'active handles', unit: '', pick: (s: Sample) => s.handles, digits: 0, slack: COUNT_SLACK },
  ]
  const name = `soak ${ROUNDS} rounds`
  report([
    {
      name: `${name}: aborts`,
      figure: `${aborts.length} in ${rounds} rounds`,
      baseline: '-',
      ratio: null,
      target: '0, shutdown exit code 0',
      pass: aborts.length === 0 && rounds >= ROUNDS && cleanExit,
    },
    {
      name: `${name}: worker threads started`,
      figure: `end ${threadsAtEnd}`,
      baseline: `round ${WARM_UP_ROUNDS}: ${threadsAtWarmUp ?? '-'}`,
      ratio: threadsAtWarmUp ? threadsAtEnd / threadsAtWarmUp : null,
      target: 'none after the warm-up',
      pass: threadsAtWarmUp !== undefined && threadsAtEnd === threadsAtWarmUp,
    },
    ...measures.map(({ name: measure, unit, pick, digits, slack }) => {
      const startFigure = median(first.map(pick))
      const end = median(last.map(pick))
      const show = (value: number) => `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`
      return {
        name: `${name}: ${measure}`,
        figure: `end ${show(end)}`,
        baseline: `start ${show(startFigure)}`,
        ratio: end / startFigure,
        target: `< ${(1 + MAX_GROWTH).toFixed(2)}x${slack ? ` or +${slack}` : ''}, every scrape 200`,
        pass:
          (end < startFigure * (1 + MAX_GROWTH) || end <= startFigure + slack) &&
          failed === 0 &&
          first.length > 0 &&
          last.length > 0,
      }
    }),
  ])
} finally {
  state.remove()
  build.remove()
}
