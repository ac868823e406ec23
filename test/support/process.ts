import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { withoutPermissionOverride } from './unprivileged.js'

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

export interface ExporterProcess {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>
  /** Waits (bounded) until stdout contains `text`. */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<void>
  kill(signal?: NodeJS.Signals): void
}

export interface ProcessOptions {
  readonly nodeArgs?: readonly string[]
  /**
   * File permissions apply to the process even when the tests run as root (see unprivileged.ts):
   * where a test needs what a non-root exporter meets, a folder it cannot write.
   */
  readonly unprivileged?: boolean
  /** Command-line arguments (`check-config`, `scan --once`...); none runs serve, as npm start does. */
  readonly args?: readonly string[]
  /** A built entry (`dist/main.js` of `npm run build`) run by node itself, instead of src/main.ts through tsx. */
  readonly entry?: string
}

/**
 * Runs the real entry point (src/main.ts through tsx) as a child process, in `cwd`, with exactly
 * `env` plus PATH: what an operator gets from `npm start`.
 */
export function startExporterProcess(
  env: Record<string, string>,
  cwd: string,
  options: ProcessOptions = {},
): ExporterProcess {
  const main = options.entry === undefined ? ['--import', TSX, MAIN] : [options.entry]
  const nodeArgs = [...(options.nodeArgs ?? []), ...main, ...(options.args ?? [])]
  const { command, args } = options.unprivileged
    ? withoutPermissionOverride(process.execPath, nodeArgs)
    : { command: process.execPath, args: nodeArgs }
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string)
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForOutput(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      const matches = () => (typeof text === 'string' ? out.includes(text) : text.test(out))
      while (!matches()) {
        if (child.exitCode !== null) throw new Error(`exporter exited (${child.exitCode}): ${err}`)
        if (Date.now() > deadline)
          throw new Error(`no ${String(text)} on stdout within ${timeoutMs} ms: ${out}${err}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
  }
}

/** What a command run to its end printed, and how it ended. */
export interface CommandRun {
  readonly code: number | string
  readonly stdout: string
  readonly stderr: string
}

/** Runs the entry point with `args` (a subcommand) and `env` in `cwd` until it exits by itself. */
export async function runCommand(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<CommandRun> {
  const child = startExporterProcess(env, cwd, { args })
  try {
    const code = await child.exited
    return { code, stdout: child.stdout(), stderr: child.stderr() }
  } finally {
    child.kill('SIGKILL')
  }
}

/** A TCP port free on 127.0.0.1 right now, for a child process that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** A run the process must refuse at start-up: its exit code and what it printed. */
export interface RefusedRun extends CommandRun {
  /** The `invalid configuration` lines of stderr, without their prefix. */
  readonly problems: string[]
}

const PROBLEM_PREFIX = 'objstore-exporter: invalid configuration: '

/** Runs the process with `env` until it exits by itself (a configuration it refuses). */
export async function runUntilExit(env: Record<string, string>, cwd: string): Promise<RefusedRun> {
  const run = await runCommand([], env, cwd)
  return { ...run, problems: refusalProblems(run.stderr) }
}

/** The `invalid configuration` lines of `stderr`, without their prefix. */
export function refusalProblems(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(PROBLEM_PREFIX))
    .map((line) => line.slice(PROBLEM_PREFIX.length))
}

/** A process's resident set now (VmRSS) and at its peak so far (VmHWM), in bytes (Linux /proc). */
export async function residentBytes(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { now: kib('VmRSS'), peak: kib('VmHWM') }
}
