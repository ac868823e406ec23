import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import { rawGet } from '../test/support/exporter.js'
import { freePort } from '../test/support/process.js'
import { startS3rver } from '../test/support/s3rver.js'
import { runAutocannon } from './support/autocannon.js'
import { benchBuild } from './support/build.js'
import { processCpuMs, residentMb } from './support/exporter-child.js'
import { type BenchRow, median, report } from './support/report.js'

/**
 * Issue 15's targets 3 and 4, on the built exporter (`node dist/main.js`, as `npm start` runs it):
 * - start to ready: wall time from spawn to the first 200 of /readyz, the fs source on an empty
 *   DATA_DIR, against a bare `node -e` HTTP server from spawn to its first answer (alternated);
 * - idle RSS with the fs source and with the s3 source (SDK loaded: one scan of s3rver done),
 *   as Prometheus leaves an exporter: scraped (gzip) every IDLE_SCRAPE_MS for IDLE_SCRAPES rounds,
 *   RSS read just before each scrape; the figure is the largest reading after the first
 *   IDLE_SETTLE_MS. The first seconds after start are not idle: V8 keeps start-up's grown young
 *   generation until its memory reducer runs (some 10-20 s without much allocation), so the
 *   reading 3 s after start is printed beside it. The bare server is measured the same way.
 * - drives-only scrapes under load: 10 connections, gzip, against node_exporter's filesystem
 *   collector alone on the same mount point, rounds alternated; requests per second and each
 *   process's CPU per request (/proc/PID/stat). Skipped, with the reason, without node_exporter.
 */

const START_ROUNDS = 7
const LOAD_ROUNDS = 5
const LOAD_SECONDS = 3
const CONNECTIONS = 10
const START_TARGET_MS = 500
/** Half config/prometheus.yml's 30 s scrape interval: twice the allocation of a real deployment. */
const IDLE_SCRAPE_MS = 15_000
const IDLE_SCRAPES = 7
const IDLE_SETTLE_MS = 30_000
const IDLE_FS_TARGET_MB = 70
const IDLE_S3_TARGET_MB = 90
/** The one mount point both exporters report. */
const MOUNT = '/'
const NODE_EXPORTER = 'prometheus-node-exporter'
const BUCKET = 'bench-footprint'

interface Started {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** Spawn to the first 200 of the ready URL, in ms. */
  readonly readyMs: number
  close(): Promise<void>
}

/** One GET on a fresh connection: its status, or 0 when nothing answers yet. */
function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', () => resolve(0))
  })
}

/** Spawns `args` and polls `readyPath` every 2 ms (bounded: 30 s) until it answers 200. */
async function startTimed(
  args: readonly string[],
  port: number,
  readyPath: string,
  env: Record<string, string> = {},
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<Started> {
  const baseUrl = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = spawn(args[0] as string, args.slice(1), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'ignore', stderr],
  })
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
  const deadline = started + 30_000
  while ((await status(`${baseUrl}${readyPath}`)) !== 200) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await close()
      throw new Error(`${args.join(' ')}: not ready (exit ${child.exitCode})`)
    }
    await sleep(2)
  }
  return { child, baseUrl, readyMs: performance.now() - started, close }
}

const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(+process.env.PORT, '127.0.0.1')`

async function startBare(): Promise<Started> {
  const port = await freePort()
  return startTimed([process.execPath, '-e', BARE_SERVER], port, '/', { PORT: String(port) })
}

async function startExporter(env: Record<string, string>): Promise<Started> {
  const port = await freePort()
  return startTimed([process.execPath, join(build.dir, 'main.js')], port, '/readyz', {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...env,
  })
}

interface IdleRss {
  /** VmRSS 3 s after three scrapes right after start (start-up's heap not yet given back). */
  readonly afterStartMb: number
  /** The largest VmRSS read before a scrape, once IDLE_SETTLE_MS have passed. */
  readonly idleMb: number
}

async function gzipScrape(started: Started, path: string): Promise<void> {
  const response = await rawGet(`${started.baseUrl}${path}`, { 'Accept-Encoding': 'gzip' })
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
}

/** Idle as Prometheus leaves it: see the header. About IDLE_SCRAPES x IDLE_SCRAPE_MS of wall time. */
async function idleRss(started: Started, path: string): Promise<IdleRss> {
  const pid = started.child.pid as number
  for (let round = 0; round < 3; round++) await gzipScrape(started, path)
  await sleep(3000)
  const afterStartMb = residentMb(pid, 'VmRSS')
  const begun = performance.now()
  let idleMb = 0
  for (let round = 0; round < IDLE_SCRAPES; round++) {
    await sleep(IDLE_SCRAPE_MS)
    if (performance.now() - begun >= IDLE_SETTLE_MS) idleMb = Math.max(idleMb, residentMb(pid, 'VmRSS'))
    await gzipScrape(started, path)
  }
  return { afterStartMb, idleMb }
}

const mb = (value: number) => `${value.toFixed(0)} MB`

async function startAndIdle(rows: BenchRow[]): Promise<void> {
  const emptyData = mkdtempSync(join(tmpdir(), 'objstore-bench-footprint-'))
  const bareMs: number[] = []
  const exporterMs: number[] = []
  const s3 = await startS3rver()
  const running: Started[] = []
  let idle: { bare: IdleRss; fs: IdleRss; s3: IdleRss }
  try {
    for (let round = 0; round < START_ROUNDS; round++) {
      const bare = await startBare()
      bareMs.push(bare.readyMs)
      await bare.close()
      const exporter = await startExporter({ DATA_DIR: emptyData })
      exporterMs.push(exporter.readyMs)
      await exporter.close()
    }
    await s3.client.send(new CreateBucketCommand({ Bucket: BUCKET }))
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'a', Body: Buffer.from('a') }))
    // The three idle at once: nothing else runs, and it takes a minute and a half, not four.
    const bare = await startBare()
    running.push(bare)
    const fsExporter = await startExporter({ DATA_DIR: emptyData })
    running.push(fsExporter)
    const s3Exporter = await startExporter({ ...s3.exporterEnv })
    running.push(s3Exporter)
    const [bareIdle, fsIdle, s3Idle] = await Promise.all([
      idleRss(bare, '/'),
      idleRss(fsExporter, '/metrics'),
      idleRss(s3Exporter, '/metrics'),
    ])
    idle = { bare: bareIdle, fs: fsIdle, s3: s3Idle }
  } finally {
    await Promise.all(running.map((started) => started.close()))
    await s3.stop()
    rmSync(emptyData, { recursive: true, force: true })
  }
  const startMs = median(exporterMs)
  const baseMs = median(bareMs)
  const shown = (rss: IdleRss) => `${mb(rss.idleMb)} (${mb(rss.afterStartMb)} 3 s after start)`
  process.stdout.write(
    `start to ready: exporter ${exporterMs.map((ms) => ms.toFixed(0)).join(', ')} ms; bare node ` +
      `${bareMs.map((ms) => ms.toFixed(0)).join(', ')} ms; idle RSS, scraped every ${IDLE_SCRAPE_MS / 1000} s: ` +
      `bare ${shown(idle.bare)}, fs ${shown(idle.fs)}, s3 ${shown(idle.s3)}\n`,
  )
  const idleFigure = (rss: IdleRss) => `${mb(rss.idleMb)} (3 s after start: ${mb(rss.afterStartMb)})`
  rows.push(
    {
      name: 'start to ready, fs source, empty DATA_DIR (wall)',
      figure: `${startMs.toFixed(0)} ms median of ${START_ROUNDS}`,
      baseline: `bare node http server ${baseMs.toFixed(0)} ms`,
      ratio: startMs / baseMs,
      target: `<= ${START_TARGET_MS} ms`,
      pass: startMs <= START_TARGET_MS,
    },
    {
      name: `idle RSS, fs source, scraped every ${IDLE_SCRAPE_MS / 1000} s`,
      figure: idleFigure(idle.fs),
      baseline: `bare node http server ${mb(idle.bare.idleMb)}`,
      ratio: idle.fs.idleMb / idle.bare.idleMb,
      target: `<= ${IDLE_FS_TARGET_MB} MB`,
      pass: idle.fs.idleMb <= IDLE_FS_TARGET_MB,
    },
    {
      name: `idle RSS, s3 source (SDK loaded, one scan done), scraped every ${IDLE_SCRAPE_MS / 1000} s`,
      figure: idleFigure(idle.s3),
      baseline: `bare node http server ${mb(idle.bare.idleMb)}`,
      ratio: idle.s3.idleMb / idle.bare.idleMb,
      target: `<= ${IDLE_S3_TARGET_MB} MB`,
      pass: idle.s3.idleMb <= IDLE_S3_TARGET_MB,
    },
  )
}

/** Where node_exporter is, or why the row is skipped. */
function nodeExporterPath(): string | { skipped: string } {
  const found = spawnSync('sh', ['-c', `command -v ${NODE_EXPORTER} || command -v node_exporter`], {
    encoding: 'utf8',
  })
  const path = found.stdout.trim().split('\n')[0] ?? ''
  if (found.status === 0 && path !== '') return path
  return { skipped: `node_exporter not installed (apt-get install -y ${NODE_EXPORTER})` }
}

async function startNodeExporter(path: string): Promise<Started> {
  const port = await freePort()
  return startTimed(
    [
      path,
      '--collector.disable-defaults',
      '--collector.filesystem',
      // Every mount point but MOUNT left out, whatever its type (overlay in a container).
      '--collector.filesystem.mount-points-exclude=^/.+',
      '--collector.filesystem.fs-types-exclude=^$',
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    port,
    '/metrics',
    {},
    // It logs its start-up at info level, with no flag to quiet it.
    'ignore',
  )
}

interface LoadRound {
  readonly perSecond: number
  readonly cpuMsPerRequest: number
}

async function loadRound(started: Started): Promise<LoadRound> {
  const pid = started.child.pid as number
  const cpuBefore = processCpuMs(pid)
  const result = await runAutocannon(`${started.baseUrl}/metrics`, {
    connections: CONNECTIONS,
    seconds: LOAD_SECONDS,
    headers: ['accept-encoding=gzip'],
  })
  const failed = result.errors + result.timeouts + result.non2xx
  if (failed > 0 || result.requests.total === 0)
    throw new Error(`${started.baseUrl}: ${failed} failed of ${result.requests.total}`)
  return {
    perSecond: result.requests.total / LOAD_SECONDS,
    cpuMsPerRequest: (processCpuMs(pid) - cpuBefore) / result.requests.total,
  }
}

async function drivesScrape(rows: BenchRow[]): Promise<void> {
  const name = `drives scrape, ${CONNECTIONS} connections, gzip: requests/s`
  const cpuName = 'drives scrape: CPU per request'
  const path = nodeExporterPath()
  if (typeof path !== 'string') {
    process.stdout.write(`${path.skipped}: drives scrape rows skipped\n`)
    for (const row of [name, cpuName])
      rows.push({
        name: row,
        figure: 'skipped',
        baseline: path.skipped,
        ratio: null,
        target: 'reported',
        pass: true,
      })
    return
  }
  const emptyData = mkdtempSync(join(tmpdir(), 'objstore-bench-drives-'))
  const ours = await startExporter({ DATA_DIR: emptyData, DRIVES: MOUNT })
  const theirs = await startNodeExporter(path).catch(async (error: unknown) => {
    await ours.close()
    throw error
  })
  try {
    const sample = (await rawGet(`${theirs.baseUrl}/metrics`)).body.toString('utf8')
    if (!sample.includes(`mountpoint="${MOUNT}"`)) throw new Error(`node_exporter does not report ${MOUNT}`)
    // Warm-up, then alternated rounds: both meet the same moments of a shared machine.
    await loadRound(ours)
    await loadRound(theirs)
    const our: LoadRound[] = []
    const their: LoadRound[] = []
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      our.push(await loadRound(ours))
      their.push(await loadRound(theirs))
    }
    const rps = median(our.map((round) => round.perSecond))
    const theirRps = median(their.map((round) => round.perSecond))
    const cpu = median(our.map((round) => round.cpuMsPerRequest))
    const theirCpu = median(their.map((round) => round.cpuMsPerRequest))
    process.stdout.write(
      `drives scrape rounds: ours ${our.map((round) => round.perSecond.toFixed(0)).join(', ')} req/s, ` +
        `node_exporter ${their.map((round) => round.perSecond.toFixed(0)).join(', ')} req/s\n`,
    )
    rows.push(
      {
        name,
        figure: `${rps.toFixed(0)} req/s`,
        baseline: `node_exporter ${theirRps.toFixed(0)} req/s`,
        ratio: rps / theirRps,
        target: '>= 1.0x node_exporter',
        pass: rps >= theirRps,
      },
      {
        name: cpuName,
        figure: `${cpu.toFixed(2)} ms`,
        baseline: `node_exporter ${theirCpu.toFixed(2)} ms`,
        ratio: cpu / theirCpu,
        target: '<= 1.2x node_exporter',
        pass: cpu <= 1.2 * theirCpu,
      },
    )
  } finally {
    await Promise.all([ours.close(), theirs.close()])
    rmSync(emptyData, { recursive: true, force: true })
  }
}

const build = benchBuild()
try {
  const rows: BenchRow[] = []
  await startAndIdle(rows)
  await drivesScrape(rows)
  report(rows)
} finally {
  build.remove()
}
