/**
 * What the throwaway servers of the integration suite (Ceph RGW, OpenStack Swift) have in common:
 * Debian packages installed or the suite skipped, commands run with a bound, and daemons started
 * in one temporary folder, each in its own process group, and ended whatever happens to the test.
 *
 * Clean-up is layered so a failing or killed test leaves nothing behind: stop() (call it from
 * t.after / after), a process 'exit' handler that SIGKILLs the groups, and a small watchdog shell
 * that kills them and removes the folder when the test process disappears without either.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { accessSync, closeSync, constants, openSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import type { WaitOptions } from './wait-for.js'

const INSTALL_TIMEOUT_MS = 15 * 60_000
const COMMAND_TIMEOUT_MS = 120_000
const STOP_GRACE_MS = 10_000

/** Debian packages and the binaries they bring, for a server the suite starts. */
export interface DebianServer {
  /** What the server is called in messages ("Ceph RGW"). */
  readonly name: string
  readonly packages: readonly string[]
  readonly binaries: readonly string[]
}

export function onPath(binary: string): boolean {
  for (const folder of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    try {
      accessSync(join(folder, binary), constants.X_OK)
      return true
    } catch {}
  }
  return false
}

function installCommand(server: DebianServer): string {
  return `apt-get install --no-install-recommends ${server.packages.join(' ')}`
}

/**
 * Why a suite needing `server` is skipped: its binaries are missing and it cannot install them
 * (not root). In CI a missing server is a failure, not a skip. Root installs them at start.
 */
export function serverSkipReason(server: DebianServer): string | false {
  const missing = server.binaries.filter((binary) => !onPath(binary))
  if (missing.length === 0 || process.getuid?.() === 0) return false
  if (process.env.CI)
    throw new Error(`${server.name} is missing in CI: .ci/run must run ${installCommand(server)}`)
  return `${server.name} not installed (${installCommand(server)})`
}

/** Runs a command to its end, bounded; rejects with its stderr's tail on a failure. */
export function runTool(
  file: string,
  args: readonly string[],
  timeoutMs = COMMAND_TIMEOUT_MS,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-2000)}`))
        } else {
          resolve(stdout)
        }
      },
    )
  })
}

/** Installs the server's Debian packages when a binary is missing (root only; apt-get update first). */
export async function ensureDebianPackages(server: DebianServer): Promise<void> {
  const missing = server.binaries.filter((binary) => !onPath(binary))
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${server.name} binaries missing (${missing.join(', ')}); install as root: ${installCommand(server)}`,
    )
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Another process may hold the dpkg lock (a parallel install): wait for it, bounded.
  const lock = ['-o', 'DPkg::Lock::Timeout=300']
  await runTool('apt-get', [...lock, 'update', '-qq'], INSTALL_TIMEOUT_MS, env)
  await runTool(
    'apt-get',
    [...lock, 'install', '-y', '-qq', '--no-install-recommends', ...server.packages],
    INSTALL_TIMEOUT_MS,
    env,
  )
  const still = server.binaries.filter((binary) => !onPath(binary))
  if (still.length > 0)
    throw new Error(`${server.name} binaries still missing after install: ${still.join(', ')}`)
}

export interface Daemon {
  readonly name: string
  readonly child: ChildProcess
  exited: boolean
}

export class DaemonExited extends Error {
  constructor(daemon: Daemon) {
    super(`${daemon.name} exited during start-up (code ${daemon.child.exitCode})`)
    this.name = 'DaemonExited'
  }
}

/**
 * Runs `start` once more when a daemon exited during the first start-up: the free ports are
 * picked before the daemons bind them, and another process may take one in between.
 */
export async function startOnFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start()
  } catch (error) {
    if (!(error instanceof Error && error.cause instanceof DaemonExited)) throw error
    return await start()
  }
}

/** Daemon sets still running in this process, killed synchronously if the process exits. */
const live = new Set<DaemonSet>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const set of live) {
      for (const daemon of [...set.daemons].reverse()) killGroup(daemon, 'SIGKILL')
      rmSync(set.dir, { recursive: true, force: true })
    }
  })
}

/** Signals the daemon's process group (it leads one: spawned detached), then the daemon itself. */
function killGroup(daemon: Daemon, signal: NodeJS.Signals): void {
  const pid = daemon.child.pid
  if (!pid) return
  try {
    process.kill(-pid, signal)
  } catch {}
  if (!daemon.exited) {
    try {
      daemon.child.kill(signal)
    } catch {}
  }
}

/**
 * The last line of defence: a shell that outlives a test process killed with SIGKILL, kills the
 * process groups listed in DIR/pids and removes DIR. It polls once a second and ends as soon as
 * it has cleaned up; stop() ends it by pid.
 */
function startWatchdog(dir: string, label: string): ChildProcess {
  const script = `
while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done
if [ -d "$2" ]; then
  for f in "$2"/pids/*; do [ -f "$f" ] && kill -9 -- "-$(cat "$f")" 2>/dev/null; done
  sleep 1
  rm -rf "$2"
fi`
  const watchdog = spawn('sh', ['-c', script, `${label}-watchdog`, String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  })
  watchdog.unref()
  return watchdog
}

/**
 * The daemons of one throwaway server, all under `dir` (which stop() removes): their output in
 * dir/log/NAME.out, their process group ids in dir/pids for the watchdog.
 */
export class DaemonSet {
  readonly daemons: Daemon[] = []
  readonly #watchdog: ChildProcess
  #stopped: Promise<void> | undefined

  private constructor(
    readonly dir: string,
    label: string,
  ) {
    live.add(this)
    installExitHook()
    this.#watchdog = startWatchdog(dir, label)
  }

  /** Guards `dir` (made by the caller) and makes its log and pids folders. */
  static async in(dir: string, label: string): Promise<DaemonSet> {
    const set = new DaemonSet(dir, label)
    await mkdir(join(dir, 'log'), { recursive: true })
    await mkdir(join(dir, 'pids'), { recursive: true })
    return set
  }

  /** Starts `file` in the foreground of its own process group. */
  start(name: string, file: string, args: readonly string[]): Daemon {
    const output = openSync(join(this.dir, 'log', `${name}.out`), 'a')
    const child = spawn(file, args, { stdio: ['ignore', output, output], detached: true })
    closeSync(output)
    const daemon: Daemon = { name, child, exited: false }
    const pidFile = join(this.dir, 'pids', name)
    if (child.pid) writeFileSync(pidFile, String(child.pid))
    child.once('exit', () => {
      daemon.exited = true
    })
    child.once('error', () => {
      daemon.exited = true
    })
    // A forgotten stop() must not hold the test process open; the exit hook still kills it.
    child.unref()
    this.daemons.push(daemon)
    return daemon
  }

  /** A waitForValue `alive` check: throws DaemonExited once one of `daemons` has exited. */
  static running(...daemons: readonly Daemon[]): () => void {
    return () => {
      for (const daemon of daemons) if (daemon.exited) throw new DaemonExited(daemon)
    }
  }

  /** Pids of the daemons still running, in start order. */
  pids(): number[] {
    return this.daemons.filter((d) => !d.exited && d.child.pid).map((d) => d.child.pid as number)
  }

  /** Stops every daemon's group (reverse start order) and removes the folder. Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      for (const daemon of [...this.daemons].reverse()) {
        await stopDaemon(daemon)
        try {
          unlinkSync(join(this.dir, 'pids', daemon.name))
        } catch {}
      }
      live.delete(this)
      if (this.#watchdog.pid) {
        try {
          process.kill(this.#watchdog.pid, 'SIGKILL')
        } catch {}
      }
      await rm(this.dir, { recursive: true, force: true })
    })()
    return this.#stopped
  }

  /** The last lines of every log, for a start-up failure message (the folder is then removed). */
  async logTails(lines = 15): Promise<string> {
    let names: string[] = []
    try {
      names = await readdir(join(this.dir, 'log'))
    } catch {
      return ''
    }
    const parts: string[] = []
    for (const name of names.sort()) {
      const text = await readFile(join(this.dir, 'log', name), 'utf8').catch(() => '')
      if (text.trim()) parts.push(`--- ${name}\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`)
    }
    return parts.join('\n')
  }
}

/** SIGTERM to the group, SIGKILL after a grace; then SIGKILL to whatever is left in the group. */
async function stopDaemon(daemon: Daemon): Promise<void> {
  if (!daemon.child.pid) return
  const exited = new Promise<void>((resolve) => {
    if (daemon.exited) resolve()
    daemon.child.once('exit', () => resolve())
  })
  const within = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms)
      void exited.then(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  if (!daemon.exited) {
    killGroup(daemon, 'SIGTERM')
    if (!(await within(STOP_GRACE_MS))) {
      killGroup(daemon, 'SIGKILL')
      await within(STOP_GRACE_MS)
    }
  }
  // Children the daemon left in its group (a worker, a helper) go with it.
  killGroup(daemon, 'SIGKILL')
}

/**
 * waitForValue's options for a daemon coming up: until `deadline` (ms since the epoch, shared by
 * a cluster's steps), errors retried (not listening yet), `alive` failing at once when a daemon it
 * depends on has exited instead of at the deadline.
 */
export function untilDeadline(deadline: number, alive: () => void, intervalMs = 100): WaitOptions {
  return { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs, retryErrors: true, alive }
}
