import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The repository root, for reading config/, grafana/ and the Dockerfile from tests. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface CommandResult {
  readonly code: number
  readonly output: string
}

/** Runs Prometheus's promtool (Debian package `prometheus`); never rejects, reports the exit code. */
export function promtool(args: readonly string[], cwd = REPO_ROOT): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile('promtool', args, { cwd, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(new Error(`promtool could not run (${error.message}); install the Debian package prometheus`))
        return
      }
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, output: `${stdout}${stderr}` })
    })
  })
}
