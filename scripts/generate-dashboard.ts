/**
 * Writes the Grafana dashboard from its definition in scripts/dashboard/definition.ts.
 *
 *   npm run dashboard                         # grafana/dashboards/objstore-exporter.json
 *   npm run dashboard -- --namespace minio    # for METRICS_NAMESPACE=minio, to stdout
 *
 * The committed JSON is checked against the definition by test/unit/dashboard.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { buildDashboard } from './dashboard/definition.js'

export const DASHBOARD_PATH = fileURLToPath(
  new URL('../grafana/dashboards/objstore-exporter.json', import.meta.url),
)

function main(): void {
  const { values } = parseArgs({ options: { namespace: { type: 'string', default: 'objstore' } } })
  const namespace = values.namespace ?? 'objstore'
  const json = `${JSON.stringify(buildDashboard(namespace), null, 2)}\n`
  if (namespace !== 'objstore') {
    process.stdout.write(json)
    return
  }
  writeFileSync(DASHBOARD_PATH, json)
  // Formatted as biome formats every JSON file of the repository, so `biome check` stays clean.
  const biome = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url))
  execFileSync(biome, ['format', '--write', DASHBOARD_PATH], { stdio: 'ignore' })
  process.stdout.write(`wrote ${DASHBOARD_PATH}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
