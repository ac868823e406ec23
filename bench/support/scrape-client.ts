import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { Agent, get } from 'node:http'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * Scrapes from a child process, so a bench measuring its own process's CPU time counts only the
 * server side (reading 40 MB bodies costs the reader CPU too). One scrape at a time, over a
 * kept-alive connection, as Prometheus scrapes; bodies are read in full and dropped.
 */
export interface ScrapeResults {
  readonly statuses: number[]
  /** Latency of each scrape, first byte of the request to last byte of the body. */
  readonly ms: number[]
  readonly bytes: number
}

type Request =
  | {
      readonly type: 'run'
      readonly url: string
      readonly headers: Record<string, string>
      readonly count: number
    }
  | { readonly type: 'loop'; readonly url: string; readonly headers: Record<string, string> }
  | { readonly type: 'stop' }

export interface ScrapeClient {
  /** `count` scrapes one after another. */
  run(url: string, headers: Record<string, string>, count: number): Promise<ScrapeResults>
  /** Scrapes one after another until the returned function is called. */
  loop(url: string, headers: Record<string, string>): () => Promise<ScrapeResults>
  close(): Promise<void>
}

export function startScrapeClient(): ScrapeClient {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const next = async () => (await once(child, 'message'))[0] as ScrapeResults
  return {
    async run(url, headers, count) {
      child.send({ type: 'run', url, headers, count } satisfies Request)
      return next()
    },
    loop(url, headers) {
      child.send({ type: 'loop', url, headers } satisfies Request)
      return async () => {
        child.send({ type: 'stop' } satisfies Request)
        return next()
      }
    },
    async close() {
      if (child.exitCode !== null) return
      child.disconnect()
      await once(child, 'exit')
    },
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

function scrapeOnce(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { agent, headers }, (response) => {
      let bytes = 0
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }))
      response.on('error', reject)
    }).on('error', reject)
  })
}

async function serve(): Promise<void> {
  let stopping = false
  process.on('message', async (request: Request) => {
    if (request.type === 'stop') {
      stopping = true
      return
    }
    const results: ScrapeResults = { statuses: [], ms: [], bytes: 0 }
    let bytes = 0
    for (let index = 0; request.type === 'loop' ? !stopping : index < request.count; index++) {
      const started = performance.now()
      const response = await scrapeOnce(request.url, request.headers)
      results.ms.push(performance.now() - started)
      results.statuses.push(response.status)
      bytes += response.bytes
    }
    stopping = false
    process.send?.({ ...results, bytes })
  })
  process.on('disconnect', () => agent.destroy())
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await serve()
