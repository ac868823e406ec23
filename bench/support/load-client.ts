import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * A closed-loop load generator in a process of its own: `connections` kept-alive connections,
 * each asking for `url` again as soon as its previous answer's last byte arrived, for `seconds`.
 * Bodies are read in full and dropped (counted in bytes), as a scraper reads them before it
 * parses; autocannon instead appends every chunk of every body to a string (its
 * pipelinedRequestsQueue `req.body += data`), a UTF-8 decode of each 2.5 MB gzip body that costs
 * the generator more CPU than the exporter spends serving it (see scrape-load.bench.ts).
 * A request not answered in full within `timeoutMs` counts as an error and a timeout and its
 * connection is replaced, as autocannon's timeout does (10 s by default there and here).
 */
export interface LoadOptions {
  readonly connections: number
  readonly seconds: number
  readonly headers: Record<string, string>
  readonly timeoutMs: number
}

export interface LoadResult {
  /** Answers received in full (any status). */
  readonly total: number
  readonly statuses: Record<string, number>
  /** Connection errors, resets and timeouts (timeouts included). */
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly bytes: number
  /** Latency of each answer received in full, first byte of the request to last of the body. */
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number }
  /** CPU the generator's process used during the load (user and system), in ms. */
  readonly cpuMs: number
  readonly elapsedMs: number
}

type Message = { readonly url: string; readonly options: LoadOptions }

/** Runs one load in a child process (its CPU is not the caller's) and returns what it counted. */
export async function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    child.send({ url, options } satisfies Message)
    const [result] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => {
        throw new Error(`load client exited with ${code}`)
      }),
    ])) as [LoadResult]
    return result
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.disconnect()
      await once(child, 'exit')
    }
  }
}

export function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0
}

async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let timeouts = 0
  let bytes = 0
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  const deadline = started + options.seconds * 1000

  /** One request on `agent`; resolves when it ended one way or another. */
  const ask = (agent: Agent): Promise<void> =>
    new Promise((resolve) => {
      const sent = performance.now()
      let settled = false
      const settle = (failure: 'error' | 'timeout' | null) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (failure !== null) errors++
        if (failure === 'timeout') timeouts++
        resolve()
      }
      const outgoing = request(url, { agent, headers: options.headers }, (response) => {
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length
        })
        response.on('end', () => {
          if (settled) return
          latencies.push(performance.now() - sent)
          const status = String(response.statusCode ?? 0)
          statuses[status] = (statuses[status] ?? 0) + 1
          settle(null)
        })
        response.on('error', () => settle('error'))
      })
      const timer = setTimeout(() => {
        // Like autocannon: the connection is dropped and the next request opens a new one.
        outgoing.destroy()
        settle('timeout')
      }, options.timeoutMs)
      outgoing.on('error', () => settle('error'))
      outgoing.end()
    })

  const connection = async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    // Bounded by the deadline: every round ends (answer, error or timeout) within timeoutMs.
    while (performance.now() < deadline) await ask(agent)
    agent.destroy()
  }
  await Promise.all(Array.from({ length: options.connections }, connection))
  const cpu = process.cpuUsage(cpuBefore)
  const sorted = latencies.sort((a, b) => a - b)
  const non2xx = Object.entries(statuses)
    .filter(([status]) => !status.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0)
  return {
    total: latencies.length,
    statuses,
    errors,
    timeouts,
    non2xx,
    bytes,
    latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 },
    cpuMs: (cpu.user + cpu.system) / 1000,
    elapsedMs: performance.now() - started,
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.once('message', async ({ url, options }: Message) => {
    process.send?.(await load(url, options))
  })
}
