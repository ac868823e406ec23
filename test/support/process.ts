import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

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
  /** Run as this user and group (needs root): where a test needs what a non-root exporter meets. */
  readonly user?: { readonly uid: number; readonly gid: number }
  /** Command-line arguments (`check-config`, `scan --once`...); none runs serve, as npm start does. */
  readonly args?: readonly string[]
  /** A built entry (`dist/main.js` of `npm run build`) run by node itself, instead of src/main.ts through tsx. */
  readonly entry?: string
}

/**
 * Throws a clear error when `user` cannot read the checkout (src/main.ts and tsx): a clone under
 * a 0700 folder (mktemp -d) is not traversable by `nobody`, and the exporter would die at once
 * with an import error that reads like a bug in the test.
 */
function assertReadableBy(user: { readonly uid: number; readonly gid: number }): void {
  const files = [MAIN, fileURLToPath(TSX)]
  const probe = spawnSync(
    process.execPath,
    ['-e', 'for (const file of process.argv.slice(1)) require("node:fs").accessSync(file)', ...files],
    { ...user, encoding: 'utf8', timeout: 10_000 },
  )
  if (probe.status !== 0) {
    throw new Error(
      `uid ${user.uid} cannot read the checkout (${files.join(', ')}): a folder above it is not ` +
        `traversable by others; chmod 755 it. ${probe.stderr.split('\n').find((line) => line.includes('Error')) ?? ''}`,
    )
  }
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
  if (options.user) assertReadableBy(options.user)
  const main = options.entry === undefined ? ['--import', TSX, MAIN] : [options.entry]
  const args = [...(options.nodeArgs ?? []), ...main, ...(options.args ?? [])]
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
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
