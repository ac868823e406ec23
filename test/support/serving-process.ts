import assert from 'node:assert/strict'
import { type ParsedExposition, parseExposition } from './exposition.js'
import { waitForHttpOk } from './http-ready.js'
import { type ExporterProcess, freePort, type ProcessOptions, startExporterProcess } from './process.js'
import { waitFor } from './wait-for.js'

/**
 * Node's strict mode for rejections: any rejection nobody handled ends the process with an
 * uncaught exception, even where an 'unhandledRejection' listener exists (Node 20's default,
 * 'throw', lets such a listener swallow it). Every fault run uses it, so an unhandled rejection
 * anywhere shows as a crash (exit code 1 and a stack on stderr) that the run's clean-exit check
 * catches.
 */
export const STRICT_REJECTIONS = ['--unhandled-rejections=strict'] as const

/** The real exporter process, serving on a free loopback port, with what tests ask of it. */
export interface ServingProcess {
  readonly process: ExporterProcess
  readonly port: number
  /** http://127.0.0.1:PORT */
  readonly baseUrl: string
  /** GET /metrics (with `headers`); throws unless it answers 200. */
  scrape(headers?: Record<string, string>): Promise<ParsedExposition>
  /** The JSON log lines printed so far (LOG_MODE json), a partial last line left out. */
  logs(): Array<Record<string, unknown>>
  /** Waits (bounded) until `count` log lines match `matches`; returns them. */
  waitForLogs(
    what: string,
    matches: (line: Record<string, unknown>) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<Array<Record<string, unknown>>>
  /** SIGTERM, then the exit code (or signal name). */
  stop(): Promise<number | string>
}

/**
 * Starts src/main.ts (or the built `options.entry`) with `env` (HOST and PORT chosen here) and
 * strict rejections (without root's file-permission override when `options.unprivileged`), and waits until /healthz answers. The
 * process is killed when the test ends, whatever happened.
 */
export async function startServingProcess(
  t: { after: (fn: () => void) => void },
  env: Record<string, string>,
  cwd: string,
  options: Pick<ProcessOptions, 'unprivileged' | 'entry'> = {},
): Promise<ServingProcess> {
  const port = await freePort()
  // Load shedding off unless the test sets it: on a busy machine the event loop of a process
  // that is starting can pass 1 s of delay, and a test about something else would get a 503.
  const child = startExporterProcess(
    { MAX_EVENT_LOOP_DELAY_MS: '0', HOST: '127.0.0.1', PORT: String(port), ...env },
    cwd,
    {
      ...options,
      nodeArgs: STRICT_REJECTIONS,
    },
  )
  t.after(() => child.kill('SIGKILL'))
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForHttpOk(`${baseUrl}/healthz`, () => child.child.exitCode === null)
  } catch (error) {
    // Why it did not start is on its stderr: without it a CI log says only "exited".
    throw new Error(`${(error as Error).message}; stderr: ${child.stderr().slice(-2_000)}`)
  }
  const logs = () =>
    child
      .stdout()
      .split('\n')
      .flatMap((line) => {
        if (!line.startsWith('{')) return []
        try {
          return [JSON.parse(line) as Record<string, unknown>]
        } catch {
          return []
        }
      })
  return {
    process: child,
    port,
    baseUrl,
    async scrape(headers = {}) {
      const response = await fetch(`${baseUrl}/metrics`, { headers })
      const text = await response.text()
      if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${text}`)
      return parseExposition(text)
    },
    logs,
    async waitForLogs(what, matches, count = 1, timeoutMs = 30_000) {
      await waitFor(
        what,
        () => {
          if (child.child.exitCode !== null) throw new Error(`exporter exited: ${child.stderr()}`)
          return logs().filter(matches).length >= count
        },
        { timeoutMs, intervalMs: 50 },
      )
      return logs().filter(matches)
    },
    stop() {
      child.kill('SIGTERM')
      return child.exited
    },
  }
}

/**
 * stderr as a test compares it. The exporter prints nothing there in normal running: process
 * warnings (deprecations, the AWS SDK's NodeVersionSupportWarning on an unsupported Node) go through the logger
 * (src/logging/process-warnings.ts), so anything here is unexpected: a crash, an uncaught
 * exception, a warning that escaped the logger.
 */
export function unexpectedStderr(stderr: string): string {
  return stderr.trim()
}

/** SIGTERM, exit code 0, nothing unexpected on stderr, every stdout line JSON. */
export async function assertCleanExit(serving: ServingProcess): Promise<void> {
  assert.equal(await serving.stop(), 0, `exit code; stderr: ${serving.process.stderr()}`)
  assert.equal(unexpectedStderr(serving.process.stderr()), '', 'nothing unexpected on stderr')
  for (const line of serving.process.stdout().split('\n')) {
    if (line !== '') assert.doesNotThrow(() => JSON.parse(line), `a JSON log line: ${line}`)
  }
}

/**
 * What the process holds open, from its own scrape: file descriptors (sockets and files, whether
 * or not they keep the loop alive) and process.getActiveResourcesInfo() entries (sockets, timers
 * and requests that keep it alive), summed over `type`.
 */
export function openResources(scrape: ParsedExposition): { fds: number; resources: number } {
  const sum = (name: string) =>
    scrape.samples.filter((sample) => sample.name === name).reduce((total, sample) => total + sample.value, 0)
  return { fds: sum('process_open_fds'), resources: sum('nodejs_active_resources') }
}
