import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { waitForHttpOk } from '../../test/support/http-ready.js'
import { freePort } from '../../test/support/process.js'
import type { Build } from './build.js'

/** A process's resident set now (VmRSS) or at its peak (VmHWM), in MB. */
export function residentMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024
}

/** USER_HZ: the unit of /proc/PID/stat times; 100 on Linux. */
const CLOCK_TICKS = 100

/** CPU time a process has used so far (user and system, all threads), in ms. */
export function processCpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/** The built exporter (`node dist/main.js`, as deployed) in a child process. */
export interface ExporterChild {
  readonly baseUrl: string
  readonly pid: number
  /** Resident set now and its peak so far (VmRSS, VmHWM), in MB. */
  memory(): { rssMb: number; peakMb: number }
  /** CPU time the process has used so far (user and system, all threads), in ms. */
  cpuMs(): number
  /** How the process ended (a code, or the signal that ended it: SIGABRT for an abort). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The last few kB it wrote to stderr (also passed through to this process's stderr). */
  stderrTail(): string
  close(): Promise<void>
}

/** What is kept of a child's stderr: an abort's message and stack fit. */
const STDERR_TAIL = 8192

export interface ExporterChildOptions {
  /** Called with each line of its stdout (its log, JSON); stdout is ignored without it. */
  readonly onStdoutLine?: (line: string) => void
}

export async function startExporterChild(
  build: Build,
  env: Record<string, string>,
  options: ExporterChildOptions = {},
): Promise<ExporterChild> {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [join(build.dir, 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', options.onStdoutLine ? 'pipe' : 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk)
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)
  })
  const { onStdoutLine } = options
  if (onStdoutLine && child.stdout) {
    let partial = ''
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) onStdoutLine(line)
    })
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForHttpOk(`${baseUrl}/readyz`, () => child.exitCode === null, 60_000)
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return {
    baseUrl,
    pid: child.pid as number,
    memory() {
      const pid = child.pid as number
      return { rssMb: residentMb(pid, 'VmRSS'), peakMb: residentMb(pid, 'VmHWM') }
    },
    cpuMs: () => processCpuMs(child.pid as number),
    exited,
    stderrTail: () => stderr,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      await exited
    },
  }
}
