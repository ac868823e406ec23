/**
 * `npm run check:deps` (in .ci/run): the import rules of .dependency-cruiser.cjs over src/, the
 * violations listed in .dependency-cruiser-known-violations.json tolerated (`--ignore-known`):
 * fails on any other. Then says which listed violations no longer occur, so the list is
 * regenerated (`npm run check:deps:baseline`) when one is fixed and the fix cannot be undone
 * unnoticed; that note does not fail the check.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const KNOWN_VIOLATIONS = '.dependency-cruiser-known-violations.json'

interface Violation {
  readonly type: string
  readonly from: string
  readonly to: string
  readonly rule: { readonly name: string }
}

const key = (violation: Violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`

/** The listed violations that `current` (depcruise's baseline output of today's code) no longer has. */
export function fixedViolations(known: readonly Violation[], current: readonly Violation[]): string[] {
  const now = new Set(current.map(key))
  return known.map(key).filter((violation) => !now.has(violation))
}

function main(): number {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')
  const common = ['src', '--config', '.dependency-cruiser.cjs']
  const check = spawnSync(process.execPath, [depcruise, ...common, '--ignore-known', KNOWN_VIOLATIONS], {
    cwd: root,
    stdio: 'inherit',
  })
  const baseline = spawnSync(process.execPath, [depcruise, ...common, '--output-type', 'baseline'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (baseline.status !== 0) {
    process.stderr.write(baseline.stderr)
    return 1
  }
  const known = JSON.parse(readFileSync(join(root, KNOWN_VIOLATIONS), 'utf8')) as Violation[]
  const fixed = fixedViolations(known, JSON.parse(baseline.stdout) as Violation[])
  for (const violation of fixed) {
    process.stdout.write(`fixed, still listed as known: ${violation}\n`)
  }
  if (fixed.length > 0) {
    process.stdout.write(`run \`npm run check:deps:baseline\` and commit ${KNOWN_VIOLATIONS}\n`)
  }
  return check.status ?? 1
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main()
