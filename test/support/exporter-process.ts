import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { waitFor } from './wait-for.js'

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A port free right now on 127.0.0.1 (the exporter's PORT must be >= 1, so 0 cannot be passed). */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/**
 * The real exporter as operators run it (`node --import tsx src/main.ts`) in a child process
 * with only the environment given (plus PATH), its stdout and stderr captured as they are.
 */
export class ExporterProcess {
  stdout = ''
  stderr = ''
  readonly #child: ChildProcess
  readonly #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>

  private constructor(child: ChildProcess) {
    this.#child = child
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk
    })
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk
    })
    this.#exit = once(child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    }))
  }

  static start(env: Record<string, string>): ExporterProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return new ExporterProcess(child)
  }

  /** Resolves once GET /healthz answers 200 on `port`; throws with the output if it exits first. */
  async waitHealthy(port: number): Promise<void> {
    await waitFor(
      `the exporter on port ${port} (stderr: ${this.stderr.trim()})`,
      async () => {
        if (this.#child.exitCode !== null) throw new Error(`exporter exited early: ${this.stderr}`)
        try {
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200
        } catch {
          return false
        }
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    )
  }

  /** The exit, bounded: the process is killed if it has not exited within `timeoutMs`. */
  async exited(timeoutMs = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), timeoutMs)
    try {
      return await this.#exit
    } finally {
      clearTimeout(timer)
    }
  }

  /** SIGTERM, as an orchestrator stops it, then the exit. */
  async stop(timeoutMs = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM')
    return this.exited(timeoutMs)
  }

  /** Stdout split into lines, without the empty last one. */
  stdoutLines(): string[] {
    return this.stdout.split('\n').filter((line) => line !== '')
  }
}
