import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { stringify } from 'yaml'
import { freePort } from './process.js'

/**
 * A real Prometheus (Debian package `prometheus`) on a loopback port, with a generated
 * configuration and its own temporary storage, for end-to-end tests. Everything it starts is
 * stopped by close().
 */

export interface PrometheusOptions {
  readonly scrapeConfigs: readonly Record<string, unknown>[]
  readonly ruleFiles?: readonly string[]
  readonly scrapeInterval?: string
  readonly evaluationInterval?: string
}

export interface Sample {
  readonly metric: Readonly<Record<string, string>>
  readonly value: number
}

export interface RangeSeries {
  readonly metric: Readonly<Record<string, string>>
  readonly values: readonly number[]
}

export interface RunningPrometheus {
  readonly baseUrl: string
  /** GET on the HTTP API; throws unless Prometheus answers `status: success`. */
  api<T>(path: string, parameters?: Record<string, string | string[]>): Promise<T>
  /**
   * An instant query whose result is a vector; at `timeSeconds` when given (a moment whose rule
   * evaluations are all written, for figures of two rules to compare), else now.
   */
  query(expr: string, timeSeconds?: number): Promise<Sample[]>
  /** An instant query of a range selector (`name[5m]`): every stored sample, oldest first. */
  samples(selector: string): Promise<RangeSeries[]>
  /** The last lines Prometheus logged, for failure messages. */
  log(): string
  close(): Promise<void>
}

export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const scratch = await mkdtemp(join(tmpdir(), 'objstore-prometheus-'))
  const configFile = join(scratch, 'prometheus.yml')
  await writeFile(
    configFile,
    stringify({
      global: {
        scrape_interval: options.scrapeInterval ?? '1s',
        scrape_timeout: options.scrapeInterval ?? '1s',
        evaluation_interval: options.evaluationInterval ?? '1s',
      },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: options.scrapeConfigs,
    }),
  )
  const logLines: string[] = []
  let child: ChildProcess | undefined
  let baseUrl = ''
  // A free port can be taken between the probe and Prometheus's bind: try a few.
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    const port = await freePort()
    const candidate = spawn(
      'prometheus',
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(scratch, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const collect = (chunk: Buffer) => {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      logLines.splice(0, Math.max(0, logLines.length - 200))
    }
    candidate.stdout?.on('data', collect)
    candidate.stderr?.on('data', collect)
    const url = `http://127.0.0.1:${port}`
    if (await becomesReady(url, candidate)) {
      child = candidate
      baseUrl = url
    } else {
      await stop(candidate)
    }
  }
  if (!child) {
    await rm(scratch, { recursive: true, force: true })
    throw new Error(`prometheus did not become ready:\n${logLines.join('\n')}`)
  }
  const running = child

  async function api<T>(path: string, parameters: Record<string, string | string[]> = {}): Promise<T> {
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(parameters)) {
      for (const item of Array.isArray(value) ? value : [value]) search.append(key, item)
    }
    const response = await fetch(`${baseUrl}/api/v1/${path}?${search}`, {
      signal: AbortSignal.timeout(10_000),
    })
    const body = (await response.json()) as { status: string; data: T; error?: string }
    if (body.status !== 'success')
      throw new Error(`prometheus ${path} ${search}: ${body.error ?? response.status}`)
    return body.data
  }

  return {
    baseUrl,
    api,
    async query(expr, timeSeconds) {
      const data = await api<{
        resultType: string
        result: Array<{ metric: Record<string, string>; value: [number, string] }>
      }>('query', { query: expr, ...(timeSeconds === undefined ? {} : { time: String(timeSeconds) }) })
      if (data.resultType !== 'vector') throw new Error(`${expr}: expected a vector, got ${data.resultType}`)
      return data.result.map((item) => ({ metric: item.metric, value: Number(item.value[1]) }))
    },
    async samples(selector) {
      const data = await api<{
        resultType: string
        result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }>
      }>('query', { query: selector })
      if (data.resultType !== 'matrix')
        throw new Error(`${selector}: expected a matrix, got ${data.resultType}`)
      return data.result.map((item) => ({
        metric: item.metric,
        values: item.values.map(([, value]) => Number(value)),
      }))
    },
    log: () => logLines.join('\n'),
    async close() {
      await stop(running)
      await rm(scratch, { recursive: true, force: true })
    },
  }
}

/** Polls /-/ready for up to 30 s; false if the process exits first (port taken, bad config). */
async function becomesReady(url: string, child: ChildProcess): Promise<boolean> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) return false
    try {
      const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) })
      if (response.status === 200) return true
    } catch {
      // Not listening yet.
    }
    await sleep(100)
  }
  return false
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}
