import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { rawGet } from '../test/support/exporter.js'
import { benchBuild } from './support/build.js'
import { type ExporterChild, residentMb, startExporterChild } from './support/exporter-child.js'
import { report } from './support/report.js'
import { createUsageState, type UsageState } from './support/usage-state.js'

/**
 * Target 5: resident set of the built exporter (`node dist/main.js`, as deployed), read from
 * /proc. Idle (an empty DATA_DIR, a few scrapes served, then left alone) is printed beside a bare
 * Node process and is the baseline of the rows; its target row is footprint.bench.ts's, which
 * measures it for each source. With 10,000 buckets in the snapshot: the snapshot
 * (every per-bucket family) loaded from the state file, rendered, and scraped for 10 s as
 * Prometheus scrapes (gzip, both formats; a client without gzip makes the exporter keep the
 * uncompressed text too, some 45 MB); the peak (VmHWM) over the whole run, start-up included.
 * Then, reported beside it: the same with real scans of 10,000 bucket folders every 5 s, each
 * publishing a new snapshot (V8 lets the replaced snapshots pile up as garbage for a while
 * before a full collection).
 */

const LOADED_TARGET_MB = 250
/** As Prometheus scrapes (it always asks for gzip): OpenMetrics, and the text format. */
const VARIANTS: ReadonlyArray<Record<string, string>> = [
  {
    Accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5',
    'Accept-Encoding': 'gzip',
  },
  { Accept: 'text/plain;version=0.0.4', 'Accept-Encoding': 'gzip' },
]

/** A Node process doing nothing: what the runtime itself takes. */
async function bareNodeMb(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  try {
    await sleep(1000)
    return residentMb(child.pid as number, 'VmRSS')
  } finally {
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
}

async function scrapeAll(exporter: ExporterChild): Promise<void> {
  for (const headers of VARIANTS) {
    const response = await rawGet(`${exporter.baseUrl}/metrics`, headers)
    if (response.status !== 200) throw new Error(`scrape answered ${response.status}`)
  }
}

/** The exporter on the state's snapshot and folders for `ms` of scrapes; its memory at the end. */
async function serveFor(
  state: UsageState,
  scanIntervalSeconds: string,
  ms: number,
): Promise<{ rssMb: number; peakMb: number }> {
  const exporter = await startExporterChild(build, {
    DATA_DIR: state.dataDir,
    STATE_FILE: state.stateFile,
    SCAN_INTERVAL_SECONDS: scanIntervalSeconds,
  })
  try {
    const until = Date.now() + ms
    while (Date.now() < until) {
      await scrapeAll(exporter)
      await sleep(250)
    }
    return exporter.memory()
  } finally {
    await exporter.close()
  }
}

const build = benchBuild()
try {
  const bareMb = await bareNodeMb()

  const emptyData = mkdtempSync(join(tmpdir(), 'objstore-bench-idle-'))
  let idleMb: number
  try {
    const idle = await startExporterChild(build, { DATA_DIR: emptyData })
    try {
      for (let round = 0; round < 3; round++) await scrapeAll(idle)
      await sleep(3000)
      idleMb = idle.memory().rssMb
    } finally {
      await idle.close()
    }
  } finally {
    rmSync(emptyData, { recursive: true, force: true })
  }

  process.stdout.write('generating a snapshot of 10,000 buckets and their folders ...\n')
  const state = await createUsageState({ buckets: 10_000, objectsPerBucket: 20, filesPerBucket: 2 })
  let served: { rssMb: number; peakMb: number }
  let scanning: { rssMb: number; peakMb: number }
  try {
    // The snapshot served: loaded, rendered, scraped for 10 s; the next scan an hour away.
    served = await serveFor(state, '3600', 10_000)
    // Scans of the 10,000 bucket folders every 5 s (+-10%) for 16 s while scrapes come: each
    // publishes a new snapshot, the one before becomes garbage.
    scanning = await serveFor(state, '5', 16_000)
  } finally {
    state.remove()
  }

  process.stdout.write(
    `bare node ${bareMb.toFixed(0)} MB; exporter 3 s after start ${idleMb.toFixed(0)} MB; 10,000 buckets served: ` +
      `${served.rssMb.toFixed(0)} MB at the end, peak ${served.peakMb.toFixed(0)} MB; with scans every 5 s: ` +
      `${scanning.rssMb.toFixed(0)} MB at the end, peak ${scanning.peakMb.toFixed(0)} MB\n`,
  )
  report([
    {
      name: 'RSS, 10,000 buckets in the snapshot',
      figure: `peak ${served.peakMb.toFixed(0)} MB (${served.rssMb.toFixed(0)} MB after)`,
      baseline: `3 s after start ${idleMb.toFixed(0)} MB`,
      ratio: served.peakMb / idleMb,
      target: `< ${LOADED_TARGET_MB} MB`,
      pass: served.peakMb < LOADED_TARGET_MB,
    },
    {
      name: 'RSS, 10,000 buckets rescanned every 5 s',
      figure: `peak ${scanning.peakMb.toFixed(0)} MB (${scanning.rssMb.toFixed(0)} MB after)`,
      baseline: `served ${served.peakMb.toFixed(0)} MB`,
      ratio: scanning.peakMb / served.peakMb,
      target: 'reported',
      pass: true,
    },
  ])
} finally {
  build.remove()
}
