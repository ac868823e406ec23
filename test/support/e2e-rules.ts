import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildDashboard } from '../../scripts/dashboard/definition.js'
import type { Dashboard } from '../../scripts/dashboard/grafana.js'
import { RULE_PARAMETERS, type RuleParameters } from '../../scripts/rules/parameters.js'
import { renderAlertsFile } from '../../scripts/rules/render.js'
import { REPO_ROOT } from './promtool.js'

/**
 * The shipped rules and dashboard with windows an end-to-end test can fill in seconds: the rules
 * generator (scripts/rules/) and the dashboard's definition given the shipped parameters with the
 * windows of the forecast, growth and cost rules cut from hours to seconds, for exporters that scan
 * every second. Nothing else differs: thresholds, hand-written rules and other rows are as shipped.
 */
export const E2E_RULE_PARAMETERS: RuleParameters = {
  ...RULE_PARAMETERS,
  scanIntervalSeconds: 1,
  capacity: { ...RULE_PARAMETERS.capacity, windowSeconds: 10 },
  quota: { ...RULE_PARAMETERS.quota, windowSeconds: 10 },
  // The floor scaled down with the windows, so a bucket written steadily is above it.
  growth: { ...RULE_PARAMETERS.growth, recentSeconds: 5, baselineSeconds: 15, floorBytes: 256 * 1024 },
  cost: { ...RULE_PARAMETERS.cost, requestRateWindowSeconds: 10 },
}

/** config/alerts.yml rendered with E2E_RULE_PARAMETERS, written to `folder`; its path. */
export async function writeE2eRules(folder: string): Promise<string> {
  const shipped = readFileSync(join(REPO_ROOT, 'config/alerts.yml'), 'utf8')
  const path = join(folder, 'alerts-e2e.yml')
  await writeFile(path, renderAlertsFile(shipped, E2E_RULE_PARAMETERS))
  return path
}

/** The dashboard as committed, its forecast row reading the records of the e2e rules. */
export function e2eDashboard(): Dashboard {
  return buildDashboard('objstore', E2E_RULE_PARAMETERS)
}
