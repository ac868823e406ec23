import { spawnSync } from 'node:child_process'

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
