/**
 * Writes config/kubernetes/prometheusrule.yaml (a Prometheus Operator PrometheusRule) from
 * config/alerts.yml, so the rules are written once: `npm run prometheusrule`.
 * test/unit/deployment.test.ts fails when the two drift apart.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse, stringify } from 'yaml'

export const ALERTS_PATH = fileURLToPath(new URL('../config/alerts.yml', import.meta.url))
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
  const header = [
    '# Generated from config/alerts.yml by `npm run prometheusrule`: edit that file, not this one.',
    "# The `release` label must match your Prometheus resource's ruleSelector.",
    '',
  ].join('\n')
  const body = stringify(buildPrometheusRule(readFileSync(ALERTS_PATH, 'utf8')), { lineWidth: 0 })
  writeFileSync(PROMETHEUS_RULE_PATH, `${header}${body}`)
  process.stdout.write(`wrote ${PROMETHEUS_RULE_PATH}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
