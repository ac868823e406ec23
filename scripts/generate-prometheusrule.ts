/**
 * Writes the rule files, so the rules are written once: `npm run prometheusrule`.
 * - config/alerts.yml: its generated block (forecast, growth, cost: scripts/rules/, parameters in
 *   scripts/rules/parameters.ts) rewritten, and every runbook_url under one base;
 * - config/alerts.test.yml: its expected runbook_url annotations under that base;
 * - config/kubernetes/prometheusrule.yaml (a Prometheus Operator PrometheusRule) from alerts.yml.
 *
 *   npm run prometheusrule -- --runbook-base https://wiki.example.com/objstore-runbook
 *
 * test/unit/deployment.test.ts and test/unit/rules-generator.test.ts fail when they drift apart.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parse, stringify } from 'yaml'
import { RULE_PARAMETERS } from './rules/parameters.js'
import { renderAlertsFile } from './rules/render.js'
import { rebaseRunbookUrls } from './rules/runbook.js'

export const ALERTS_PATH = fileURLToPath(new URL('../config/alerts.yml', import.meta.url))
export const ALERT_TESTS_PATH = fileURLToPath(new URL('../config/alerts.test.yml', import.meta.url))
export const PROMETHEUS_RULE_PATH = fileURLToPath(
  new URL('../config/kubernetes/prometheusrule.yaml', import.meta.url),
)

export function buildPrometheusRule(alertsYaml: string): Record<string, unknown> {
  const { groups } = parse(alertsYaml) as { groups: unknown[] }
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'objstore-exporter',
      labels: { 'app.kubernetes.io/name': 'objstore-exporter', release: 'prometheus' },
    },
    spec: { groups },
  }
}

function main(): void {
  const { values } = parseArgs({ options: { 'runbook-base': { type: 'string' } } })
  const parameters = {
    ...RULE_PARAMETERS,
    runbookBase: values['runbook-base'] ?? RULE_PARAMETERS.runbookBase,
  }
  const alerts = renderAlertsFile(readFileSync(ALERTS_PATH, 'utf8'), parameters)
  writeFileSync(ALERTS_PATH, alerts)
  writeFileSync(ALERT_TESTS_PATH, rebaseRunbookUrls(readFileSync(ALERT_TESTS_PATH, 'utf8'), parameters))
  const header = [
    '# Generated from config/alerts.yml by `npm run prometheusrule`: edit that file, not this one.',
    "# The `release` label must match your Prometheus resource's ruleSelector.",
    '',
  ].join('\n')
  const body = stringify(buildPrometheusRule(alerts), { lineWidth: 0 })
  writeFileSync(PROMETHEUS_RULE_PATH, `${header}${body}`)
  process.stdout.write(`wrote ${ALERTS_PATH}, ${ALERT_TESTS_PATH} and ${PROMETHEUS_RULE_PATH}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
