import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { catalogue, type FamilyKey, familyKeys, fullName } from '../../src/metrics/catalogue.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import type { ParsedExposition } from '../support/exposition.js'
import { eventually, type RunningPrometheus, startPrometheus } from '../support/prometheus.js'
import {
  dashboardQueries,
  familyOf,
  fillGrafanaVariables,
  metricNames,
  readRules,
  variableQueries,
} from '../support/promql.js'
import { promtoolSkipReason, REPO_ROOT } from '../support/promtool.js'
import { type RecordingProxy, startRecordingProxy } from '../support/recording-proxy.js'

/**
 * The exporter scraped by a real Prometheus (every second, through a proxy that keeps each
 * scrape body) with the shipped alert rules loaded; then asked through Prometheus's HTTP API
 * what a user's Prometheus and Grafana would ask.
 */

const JOB = 'objstore-exporter'
const NAMESPACE = 'objstore'
const ALERTS = join(REPO_ROOT, 'config/alerts.yml')
const dashboard: unknown = JSON.parse(
  readFileSync(join(REPO_ROOT, 'grafana/dashboards/objstore-exporter.json'), 'utf8'),
)

/**
 * Families that no source on this branch emits yet, by catalogue group, and what will emit them.
 * A panel whose families are all served is checked; one that needs a family of a group below
 * that is not served yet is reported as skipped with the reason (and checked as soon as it is).
 */
const NOT_YET_EMITTED: Partial<Record<(typeof catalogue)[FamilyKey]['group'], string>> = {
  usage: 'the bucket scanner (issue 3)',
  scanner: 'the bucket scanner (issue 3)',
  logger: 'the HTTP log target (issue 4)',
}

// promtool and prometheus come in the same Debian package.
describe('a real Prometheus scraping the exporter', { skip: promtoolSkipReason() }, () => {
  let scratch: string
  let missingDrive: string
  let exporter: RunningExporter
  let proxy: RecordingProxy
  let prometheus: RunningPrometheus

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-e2e-'))
    const drives = [join(scratch, 'disk1'), join(scratch, 'disk2')]
    for (const drive of drives) await mkdir(drive)
    // A third configured drive that does not exist: offline, so ObjstoreDriveOffline has a case.
    missingDrive = join(scratch, 'disk3')
    exporter = await startExporter({ DRIVES: [...drives, missingDrive].join(','), EC_PARITY: '1' })
    proxy = await startRecordingProxy(exporter.baseUrl)
    prometheus = await startPrometheus({
      scrapeConfigs: [{ job_name: JOB, static_configs: [{ targets: [proxy.target] }] }],
      ruleFiles: [ALERTS],
    })
    await eventually('two scrapes stored by Prometheus', 30_000, async () => {
      const [stored] = await prometheus.query(`count_over_time(up{job="${JOB}"}[5m])`)
      return stored && stored.value >= 2 ? true : undefined
    })
  })

  after(async () => {
    await prometheus?.close()
    await proxy?.close()
    await exporter?.close()
    await rm(scratch, { recursive: true, force: true })
  })

  test('the target is up', async () => {
    const up = await prometheus.query(`up{job="${JOB}"}`)
    assert.deepEqual(
      up.map((sample) => [sample.metric.instance, sample.value]),
      [[proxy.target, 1]],
    )
  })

  test('Prometheus stored exactly the figures the exporter served, scrape by scrape', async () => {
    const served = proxy.scrapes
    assert.ok(served.length >= 2)
    const names = familyKeys.flatMap((key) => {
      const name = fullName(NAMESPACE, key)
      return catalogue[key].type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name]
    })
    const stored = await prometheus.samples(`{__name__=~"${names.join('|')}", job="${JOB}"}[5m]`)
    const compared = new Set<string>()
    for (const series of stored) {
      const { __name__: name = '', job: _job, instance: _instance, ...labels } = series.metric
      const servedValues = served.map((scrape) => valueIn(scrape, name, labels))
      // Prometheus may not have committed the newest scrape yet: what it has is a prefix.
      assert.ok(series.values.length >= 2, `${name}: ${series.values.length} samples stored`)
      assert.deepEqual(
        series.values,
        servedValues.slice(0, series.values.length),
        `${name} ${JSON.stringify(labels)}`,
      )
      compared.add(name)
    }
    // The drive and cluster capacity families, each present and equal.
    for (const key of familyKeys.filter((candidate) => catalogue[candidate].group === 'drives')) {
      assert.ok(compared.has(fullName(NAMESPACE, key)), `${fullName(NAMESPACE, key)} not stored`)
    }
    // And the figures are the ones statfs gives: two of three drives online, parity 1 of 3.
    const latest = served[served.length - 1] as ParsedExposition
    assert.equal(valueIn(latest, `${NAMESPACE}_cluster_drive_online_total`, {}), 2)
    assert.equal(valueIn(latest, `${NAMESPACE}_cluster_drive_offline_total`, {}), 1)
    assert.equal(valueIn(latest, `${NAMESPACE}_node_drive_online`, { drive: missingDrive }), 0)
    const rawTotal = valueIn(latest, `${NAMESPACE}_cluster_capacity_raw_total_bytes`, {})
    assert.equal(
      valueIn(latest, `${NAMESPACE}_cluster_capacity_usable_total_bytes`, {}),
      Math.floor((rawTotal * 2) / 3),
    )
  })

  test('every alert and recording rule of config/alerts.yml evaluates without error on real series', async () => {
    const shipped = readRules(ALERTS)
    const rules = await eventually('every rule evaluated', 20_000, async () => {
      const data = await prometheus.api<{
        groups: Array<{
          rules: Array<{ name: string; health: string; lastError?: string; lastEvaluation: string }>
        }>
      }>('rules')
      const all = data.groups.flatMap((group) => group.rules)
      return all.length === shipped.length && all.every((rule) => !rule.lastEvaluation.startsWith('0001-'))
        ? all
        : undefined
    })
    const unhealthy = rules.filter((rule) => rule.health !== 'ok')
    assert.deepEqual(
      unhealthy.map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`),
      [],
    )
  })

  test('the offline drive makes ObjstoreDriveOffline pending for that drive only, and the exporter alerts stay quiet', async () => {
    const alerts = await eventually('ObjstoreDriveOffline pending', 20_000, async () => {
      const data = await prometheus.api<{ alerts: Array<{ labels: Record<string, string>; state: string }> }>(
        'alerts',
      )
      return data.alerts.some((alert) => alert.labels.alertname === 'ObjstoreDriveOffline')
        ? data.alerts
        : undefined
    })
    assert.deepEqual(
      alerts
        .filter((alert) => alert.labels.alertname === 'ObjstoreDriveOffline')
        .map((alert) => [alert.labels.drive, alert.labels.severity, alert.state]),
      [[missingDrive, 'critical', 'pending']],
    )
    // Space alerts depend on this machine's disk; the exporter's own health must be clean.
    const exporterGroup = new Set(
      readRules(ALERTS)
        .filter((rule) => rule.group === 'objstore-exporter')
        .map((rule) => rule.name),
    )
    assert.deepEqual(
      alerts.filter((alert) => exporterGroup.has(alert.labels.alertname ?? '')),
      [],
    )
  })

  test('every dashboard variable finds values', async () => {
    for (const variable of variableQueries(dashboard)) {
      const missing = waitingFor(metricNames(fillGrafanaVariables(variable.selector)))
      if (missing) continue // reported by the panel checks below
      const values = await prometheus.api<string[]>(`label/${variable.label}/values`, {
        'match[]': fillGrafanaVariables(variable.selector),
      })
      assert.ok(
        values.length > 0,
        `$${variable.variable}: no ${variable.label} values for ${variable.selector}`,
      )
    }
  })

  describe('every dashboard panel query returns data', () => {
    for (const query of dashboardQueries(dashboard)) {
      const expr = fillGrafanaVariables(query.expr)
      test(`${query.panel} / ${query.refId}`, async (t) => {
        const missing = waitingFor(metricNames(expr))
        if (missing) {
          t.skip(`waits for ${missing}`)
          return
        }
        const result = await prometheus.query(expr)
        assert.ok(result.length > 0, `no data for ${expr}`)
      })
    }
  })

  /** What a query needs that no source emits yet (from the latest scrape), or undefined. */
  function waitingFor(names: readonly string[]): string | undefined {
    const latest = proxy.scrapes[proxy.scrapes.length - 1]
    const served = new Set(latest?.samples.map((sample) => sample.name))
    const waiting = new Set<string>()
    for (const name of names) {
      const key = familyOf(name, NAMESPACE)
      if (!key || served.has(name)) continue
      const reason = NOT_YET_EMITTED[catalogue[key].group]
      if (reason) waiting.add(`${reason}: ${name}`)
    }
    return waiting.size > 0 ? [...waiting].join(', ') : undefined
  }
})

function valueIn(scrape: ParsedExposition, name: string, labels: Readonly<Record<string, string>>): number {
  const found = scrape.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  assert.equal(found.length, 1, `${name}${JSON.stringify(labels)} served ${found.length} times`)
  return (found[0] as { value: number }).value
}
