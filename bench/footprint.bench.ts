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
 * - idle RSS with the fs source and with the s3 source (SDK loaded: one scan of s3rver done), a
 *   few scrapes served then 3 s idle, against the bare server's;
 * - drives-only scrapes under load: 10 connections, gzip, against node_exporter's filesystem
 *   collector alone on the same mount point, rounds alternated; requests per second and each
 *   process's CPU per request (/proc/PID/stat). Skipped, with the reason, without node_exporter.
 */

const START_ROUNDS = 7
const LOAD_ROUNDS = 5
const LOAD_SECONDS = 3
const CONNECTIONS = 10
const START_TARGET_MS = 500
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

/** RSS after three scrapes (gzip, as Prometheus asks) and 3 s of rest. */
async function idleMb(started: Started, path: string): Promise<number> {
  for (let round = 0; round < 3; round++) {
    const response = await rawGet(`${started.baseUrl}${path}`, { 'Accept-Encoding': 'gzip' })
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
  }
  await sleep(3000)
  return residentMb(started.child.pid as number, 'VmRSS')
}

const mb = (value: number) => `${value.toFixed(0)} MB`

async function startAndIdle(rows: BenchRow[]): Promise<void> {
  const emptyData = mkdtempSync(join(tmpdir(), 'objstore-bench-footprint-'))
  const bareMs: number[] = []
  const exporterMs: number[] = []
  let bareMb = 0
  let fsMb = 0
  try {
    for (let round = 0; round < START_ROUNDS; round++) {
      const bare = await startBare()
      bareMs.push(bare.readyMs)
      if (round === START_ROUNDS - 1) bareMb = await idleMb(bare, '/')
      await bare.close()
      const exporter = await startExporter({ DATA_DIR: emptyData })
      exporterMs.push(exporter.readyMs)
      if (round === START_ROUNDS - 1) fsMb = await idleMb(exporter, '/metrics')
      await exporter.close()
    }
  } finally {
    rmSync(emptyData, { recursive: true, force: true })
  }
  const s3 = await startS3rver()
  let s3Mb: number
  try {
    await s3.client.send(new CreateBucketCommand({ Bucket: BUCKET }))
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'a', Body: Buffer.from('a') }))
    const exporter = await startExporter({ ...s3.exporterEnv })
    try {
      s3Mb = await idleMb(exporter, '/metrics')
    } finally {
      await exporter.close()
    }
  } finally {
    await s3.stop()
  }
  const startMs = median(exporterMs)
  const baseMs = median(bareMs)
  process.stdout.write(
    `start to ready: exporter ${exporterMs.map((ms) => ms.toFixed(0)).join(', ')} ms; bare node ` +
      `${bareMs.map((ms) => ms.toFixed(0)).join(', ')} ms; idle RSS bare ${mb(bareMb)}, fs ${mb(fsMb)}, s3 ${mb(s3Mb)}\n`,
  )
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
      name: 'idle RSS, fs source',
      figure: mb(fsMb),
      baseline: `bare node http server ${mb(bareMb)}`,
      ratio: fsMb / bareMb,
      target: `<= ${IDLE_FS_TARGET_MB} MB`,
      pass: fsMb <= IDLE_FS_TARGET_MB,
    },
    {
      name: 'idle RSS, s3 source (SDK loaded, one scan done)',
      figure: mb(s3Mb),
      baseline: `bare node http server ${mb(bareMb)}`,
      ratio: s3Mb / bareMb,
      target: `<= ${IDLE_S3_TARGET_MB} MB`,
      pass: s3Mb <= IDLE_S3_TARGET_MB,
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
