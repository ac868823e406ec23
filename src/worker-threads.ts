import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * Starts the worker-thread module `name` that sits next to the module at `siblingUrl`
 * (import.meta.url). Under tsx (tests, `npm start`) the file is TypeScript and tsx's loader does
 * not reach worker threads by itself (tsx#354), so the worker registers it first; built output
 * (`dist/`) loads the compiled JavaScript directly. No inherited node flags: preloads given to the
 * process (`--import` of a loader or of instrumentation) would otherwise run again in every thread.
 */
export function startSiblingWorker(
  siblingUrl: string,
  name: string,
  options: Omit<WorkerOptions, 'eval' | 'execArgv'> = {},
): Worker {
  const worker = newSiblingWorker(siblingUrl, name, options)
  const counts = countsOf(name)
  counts.started++
  counts.running++
  worker.once('exit', () => counts.running--)
  return worker
}

function newSiblingWorker(
  siblingUrl: string,
  name: string,
  options: Omit<WorkerOptions, 'eval' | 'execArgv'>,
): Worker {
  const extension = extname(fileURLToPath(siblingUrl))
  const entry = new URL(`./${name}${extension}`, siblingUrl)
  const settings = { ...options, execArgv: [] }
  if (extension !== '.ts') return new Worker(entry, settings)
  const tsx = import.meta.resolve('tsx/esm/api')
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(bootstrap, { ...settings, eval: true })
}

/** Worker threads of one module: started since the process began, and running now. */
export interface WorkerThreadCounts {
  started: number
  running: number
}

/**
 * Per worker module (`walk-worker`, `usage-render-worker`), process-wide: workers are meant to
 * live as long as the process, so `started` stays put while it runs; a count that climbs with
 * every scan round is the churn that once aborted the process (docs/faults.md).
 */
const threadCounts = new Map<string, WorkerThreadCounts>()

function countsOf(name: string): WorkerThreadCounts {
  let counts = threadCounts.get(name)
  if (!counts) {
    counts = { started: 0, running: 0 }
    threadCounts.set(name, counts)
  }
  return counts
}

/** Worker threads started and running, by worker module; read-only copies. */
export function workerThreadCounts(): ReadonlyMap<string, Readonly<WorkerThreadCounts>> {
  return new Map([...threadCounts].map(([name, counts]) => [name, { ...counts }]))
}
