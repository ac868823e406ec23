import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsPlugin from 'ajv-formats'
import { startExporter } from '../support/exporter.js'
import { type ParsedExposition, sampleValue } from '../support/exposition.js'
import { runCommand } from '../support/process.js'
import { type GateVerdict, type S3Gate, startS3Gate } from '../support/s3-gate.js'
import type { S3Request } from '../support/s3-requests.js'
import { fillBucket, type ObjectSpec, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Long work shows its progress (issue 26.9), on a real s3rver behind the test gate: a bucket of
 * three listing pages whose third (or second) page the gate holds, so the round stays in flight
 * at a known point while the test reads the progress line, the gauges, /api/v1/status (validated
 * against the OpenAPI document) and the landing page; then `scan --once` in a pseudo-terminal
 * (script(1)) draws its bar on stderr and clears it, and on a pipe draws none.
 */

const addFormats = (addFormatsPlugin as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default
const sizeOf = (index: number) => (index % 100) + 1
const BIG: ObjectSpec[] = Array.from({ length: 2_500 }, (_, index) => ({
  key: `k-${String(index).padStart(5, '0')}`,
  size: sizeOf(index),
}))
const SMALL_A = [10, 20, 30].map((size, index) => ({ key: `a${index}`, size }))
const SMALL_B = [1, 2, 3, 4, 5].map((size, index) => ({ key: `b${index}`, size }))
const sum = (objects: readonly ObjectSpec[]) => objects.reduce((total, object) => total + object.size, 0)
const SMALL_BYTES = sum(SMALL_A) + sum(SMALL_B)

/** Holds the `page`-th ListObjectsV2 of big-bucket from now on until `release()`. */
function holdPage(gate: S3Gate, page: number) {
  let seen = 0
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  gate.policy = async (request: S3Request): Promise<GateVerdict> => {
    if (request.operation !== 'ListObjectsV2' || request.bucket !== 'big-bucket') return 'forward'
    seen++
    if (seen === page) await released
    return 'forward'
  }
  return { release }
}

let s3: S3rverProcess
let gate: S3Gate

before(async () => {
  s3 = await startS3rver()
  await fillBucket(s3.client, 'big-bucket', BIG)
  await fillBucket(s3.client, 'small-a', SMALL_A)
  await fillBucket(s3.client, 'small-b', SMALL_B)
  gate = await startS3Gate(s3.port)
})

after(async () => {
  await gate?.close()
  await s3?.stop()
})

const env = () => ({
  ...s3.exporterEnv,
  S3_ENDPOINT: gate.endpoint,
  SCAN_INTERVAL_SECONDS: '3600',
  // One listing page after page: the pages, and so the objects at the held page, are known.
  S3_LIST_RANGES: '0',
  SCAN_CONCURRENCY: '2',
})

const requestsSent = (scrape: ParsedExposition) =>
  scrape.samples
    .filter((sample) => sample.name === 'objstore_s3_requests_total')
    .reduce((total, sample) => total + sample.value, 0)

describe('a running round', () => {
  it('is logged, scraped, served by the API and shown on the landing page, all saying the same', async (t) => {
    const running = await startExporter(env(), { progressIntervalMs: 50 })
    t.after(() => running.close())
    const { scanner } = running.exporter
    const between = await running.scrape()
    assert.equal(sampleValue(between, 'objstore_scan_round_objects_listed', { source: 's3' }), 0)
    const held = holdPage(gate, 3)
    const lines = running.logs.lines.length
    const scanned = scanner.scanNow()
    try {
      // Two pages of big-bucket folded, both small buckets measured; the third page held.
      const atHold = 2000 + SMALL_A.length + SMALL_B.length
      const progressLines = () =>
        running.logs.lines.slice(lines).filter((line) => line.msg === 'usage scan progress')
      await waitFor('a progress line at the held page', () =>
        progressLines().some((line) => line.objects === atHold && line.bucketsDone === 2),
      )
      const line = progressLines().at(-1) as Record<string, unknown>
      const bytesAtHold = sum(BIG.slice(0, 2000)) + SMALL_BYTES
      assert.deepEqual(
        {
          level: line.level,
          source: line.source,
          phase: line.phase,
          bucketsDone: line.bucketsDone,
          buckets: line.buckets,
          objects: line.objects,
          bytes: line.bytes,
          inProgress: line.inProgress,
        },
        {
          level: 30,
          source: 's3',
          phase: 'measuring',
          bucketsDone: 2,
          buckets: 3,
          objects: atHold,
          bytes: bytesAtHold,
          inProgress: ['big-bucket'],
        },
      )
      assert.ok(Number(line.objectsPerSecond) > 0)
      // The requests it counts are those the s3_requests_total counters gained since the round began.
      const scrape = await running.scrape()
      assert.equal(line.requests, requestsSent(scrape) - requestsSent(between))
      assert.equal(sampleValue(scrape, 'objstore_scan_round_objects_listed', { source: 's3' }), atHold)
      assert.equal(sampleValue(scrape, 'objstore_scan_round_bytes_listed', { source: 's3' }), bytesAtHold)

      const document = (await (await fetch(`${running.baseUrl}/api/openapi.json`)).json()) as {
        paths: Record<
          string,
          { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
        >
      }
      const ajv = new Ajv2020({ strict: true, allErrors: true })
      addFormats(ajv)
      const schema =
        document.paths['/api/v1/status']?.get.responses['200']?.content['application/json']?.schema
      assert.ok(schema)
      const validate = ajv.compile(schema)
      const status = (await (await fetch(`${running.baseUrl}/api/v1/status`)).json()) as {
        runningScan: Record<string, unknown> | null
      }
      assert.ok(validate(status), ajv.errorsText(validate.errors))
      assert.deepEqual(
        {
          ...status.runningScan,
          startedAt: undefined,
          elapsedSeconds: undefined,
          objectsPerSecond: undefined,
        },
        {
          startedAt: undefined,
          elapsedSeconds: undefined,
          objectsPerSecond: undefined,
          phase: 'measuring',
          buckets: 3,
          bucketsDone: 2,
          failedBuckets: 0,
          objects: atHold,
          bytes: bytesAtHold,
          requests: line.requests,
          inProgress: ['big-bucket'],
          bucketsInProgress: 1,
        },
      )
      const page = await (await fetch(`${running.baseUrl}/`)).text()
      assert.match(
        page,
        /<p id="scan-progress">A scan is running: started .*<progress value="2" max="3"><\/progress> 2 of 3 buckets · 2,008 objects · .* requests; measuring <code>big-bucket<\/code>\.<\/p>/,
      )
    } finally {
      held.release()
    }
    await scanned
    const finished = running.logs.lines.slice(lines).find((line) => line.msg === 'usage scan finished')
    assert.deepEqual(
      [finished?.buckets, finished?.objects, finished?.bytes],
      [3, BIG.length + SMALL_A.length + SMALL_B.length, sum(BIG) + SMALL_BYTES],
    )
    const after = await running.scrape()
    assert.equal(finished?.requests, requestsSent(after) - requestsSent(between))
    assert.equal(sampleValue(after, 'objstore_scan_round_objects_listed', { source: 's3' }), 0)
    const status = (await (await fetch(`${running.baseUrl}/api/v1/status`)).json()) as {
      runningScan: unknown
    }
    assert.equal(status.runningScan, null)
  })
})

const ESC = '\u001b'
/** Erase to the end of the line: how each frame of the bar ends. */
const ERASE = `${ESC}[K`
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

/** Why the pseudo-terminal test cannot run here; undefined when script(1) is there. */
function scriptSkipReason(): string | undefined {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' })
  if (probe.status === 0) return undefined
  const reason = 'script(1) missing: apt-get install -y util-linux'
  if (process.env.CI === 'true') throw new Error(reason)
  return reason
}

describe('scan --once', () => {
  let folder: string
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-scan-progress-'))
  })
  after(async () => {
    await rm(folder, { recursive: true, force: true })
  })

  it('on a terminal draws a progress bar on stderr, redrawn in place, and clears it', {
    skip: scriptSkipReason(),
  }, async () => {
    const output = join(folder, 'table.txt')
    const held = holdPage(gate, 2)
    // stdout to a file, stderr the pseudo-terminal script(1) gives the command.
    const command = `'${process.execPath}' --import '${TSX}' '${MAIN}' scan --once --bytes > '${output}'`
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let terminal = ''
    child.stdout.on('data', (chunk: Buffer) => {
      terminal += chunk.toString('utf8')
    })
    const exited = once(child, 'exit')
    try {
      // A frame while the second page is held: one page of big-bucket and both small buckets.
      await waitFor(
        'a bar frame at the held page',
        () => /\rscan \[#+\.*\] 2 of 3 buckets · 1,008 objects · /.test(terminal),
        { timeoutMs: 60_000, alive: () => assert.equal(child.exitCode, null, terminal) },
      )
    } finally {
      held.release()
    }
    const [code] = await exited
    assert.equal(code, 0, terminal)
    // Redrawn in place: each frame starts with a carriage return and erases the rest of the line.
    const frames = terminal.split('\r').filter((piece) => piece.startsWith('scan ') && piece.includes(ERASE))
    assert.ok(frames.length >= 2, `frames: ${frames.length}`)
    assert.ok(
      frames.every((frame) => [...frame].length <= 80 + 5),
      'no frame wider than the terminal',
    )
    // Cleared at the end: the last frame is followed by a carriage return and an erase.
    const last = terminal.lastIndexOf('\rscan ')
    assert.ok(terminal.indexOf(`\r${ERASE}`, last + 1) > last, 'the bar is cleared')
    // stdout, a file, has the table and nothing of the bar.
    const table = await readFile(output, 'utf8')
    assert.match(table, /^\s*\d+\s+2500\s+big-bucket$/m)
    assert.ok(!table.includes('\r') && !table.includes(ESC), 'no carriage return or escape code')
  })

  it('on a pipe draws no bar and writes no escape code', async () => {
    const run = await runCommand(['scan', '--once', '--bytes'], env(), folder)
    assert.equal(run.code, 0, run.stderr)
    assert.ok(!run.stderr.includes('\r') && !run.stderr.includes(ESC), 'no carriage return or escape code')
    assert.doesNotMatch(run.stderr, /^scan /m)
    assert.match(run.stdout, /^\s*\d+\s+2500\s+big-bucket$/m)
  })
})
