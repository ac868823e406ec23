import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { stringify } from 'yaml'
import {
  dashboardQueries,
  fillGrafanaVariables,
  isKnownMetric,
  metricNames,
  readRules,
  variableQueries,
} from '../support/promql.js'
import { promtool, promtoolSkipReason, REPO_ROOT } from '../support/promtool.js'

const dashboard: unknown = JSON.parse(
  readFileSync(join(REPO_ROOT, 'grafana/dashboards/objstore-exporter.json'), 'utf8'),
)
const rules = readRules(join(REPO_ROOT, 'config/alerts.yml'))
// Recorded by the shipped rules, or by the opt-in rules a user adds (backup freshness thresholds:
// config/alerts.yml ships none, the fixture is one as documented there).
const recorded = new Set(
  [...rules, ...readRules(join(REPO_ROOT, 'test/fixtures/backup-thresholds.yml'))]
    .filter((rule) => rule.kind === 'record')
    .map((rule) => rule.name),
)

/** Every PromQL expression we ship, with where it comes from, Grafana variables filled in. */
const expressions = [
  ...rules.map((rule) => ({ where: `config/alerts.yml ${rule.kind} ${rule.name}`, expr: rule.expr })),
  ...dashboardQueries(dashboard).map((query) => ({
    where: `dashboard panel "${query.panel}" query ${query.refId}`,
    expr: fillGrafanaVariables(query.expr),
  })),
  ...variableQueries(dashboard).map((query) => ({
    where: `dashboard variable ${query.variable}`,
    expr: fillGrafanaVariables(query.selector),
  })),
]

test('every PromQL expression of the dashboard and the alert rules parses (promtool check rules)', {
  skip: promtoolSkipReason(),
}, async () => {
  assert.ok(
    expressions.length > 60,
    `expected the dashboard and rules to hold many queries, found ${expressions.length}`,
  )
  const scratch = await mkdtemp(join(tmpdir(), 'objstore-promql-'))
  try {
    // One recording rule per expression: promtool parses each and names the failing one.
    const file = join(scratch, 'expressions.yml')
    const records = expressions.map((expression, index) => ({
      record: `check:expression_${index}`,
      expr: expression.expr,
    }))
    await writeFile(file, stringify({ groups: [{ name: 'expressions', rules: records }] }))
    const result = await promtool(['check', 'rules', file])
    const failing = [...result.output.matchAll(/check:expression_(\d+)/g)].map(
      (match) => expressions[Number(match[1])]?.where,
    )
    assert.equal(result.code, 0, `${result.output}\nfailing: ${failing.join('; ')}`)
    assert.match(result.output, new RegExp(`SUCCESS: ${expressions.length} rules found`))
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
})

test('every metric the dashboard and the alert rules select is one the exporter can serve', () => {
  const unknown: string[] = []
  for (const { where, expr } of expressions) {
    const names = metricNames(expr)
    assert.ok(names.length > 0 || /^(vector|time)\(/.test(expr), `${where}: no metric found in ${expr}`)
    for (const name of names) {
      if (!isKnownMetric(name, 'objstore', recorded)) unknown.push(`${where}: ${name}`)
    }
  }
  assert.deepEqual(unknown, [], 'metric names not in src/metrics/catalogue.ts (nor runtime, up or recorded)')
})

test('the exporter alerts select the scrape job the shipped configs define', () => {
  const jobSelectors = expressions.flatMap(({ expr }) =>
    [...expr.matchAll(/\bjob="([^"]+)"/g)].map((m) => m[1]),
  )
  assert.ok(jobSelectors.length > 0)
  const prometheusConfig = readFileSync(join(REPO_ROOT, 'config/prometheus.yml'), 'utf8')
  for (const job of new Set(jobSelectors)) {
    assert.match(prometheusConfig, new RegExp(`^  - job_name: ${job}$`, 'm'), `no scrape job named ${job}`)
  }
})

test("the rules renamed for METRICS_NAMESPACE=minio as config/alerts.yml says (sed 's/objstore_/minio_/g') select what MinIO mode serves", () => {
  const unknown: string[] = []
  for (const rule of rules) {
    for (const name of metricNames(rule.expr.replaceAll('objstore_', 'minio_'))) {
      const minioRecorded = new Set([...recorded].map((record) => record.replaceAll('objstore_', 'minio_')))
      if (!isKnownMetric(name, 'minio', minioRecorded)) unknown.push(`${rule.name}: ${name}`)
    }
  }
  assert.deepEqual(unknown, [], 'a family the rules select has another name under METRICS_NAMESPACE=minio')
})
