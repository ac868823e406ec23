import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The repository root, for reading config/, grafana/ and the Dockerfile from tests. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** promtool comes with Debian's prometheus package, which .ci/run installs. */
export function promtoolAvailable(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0
}

/** Why a promtool test is skipped; in CI a missing promtool is a failure, not a skip. */
export function promtoolSkipReason(): string | false {
  if (promtoolAvailable()) return false
  if (process.env.CI)
    throw new Error('promtool is missing in CI: .ci/run must install the prometheus package')
  return 'promtool not installed (apt-get install prometheus)'
}

/** Runs `promtool check metrics` on an exposition; returns its complaints (empty when clean). */
export function promtoolCheckMetrics(exposition: string): string {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' })
  return `${result.stdout}${result.stderr}`.trim()
}

export interface CommandResult {
  readonly code: number
  readonly output: string
}

/** Runs promtool with `args` from the repository root; never rejects on a non-zero exit. */
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
