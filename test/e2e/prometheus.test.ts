import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { catalogue, type FamilyKey, familyKeys, fullName } from '../../src/metrics/catalogue.js'
import { startExporter } from '../support/exporter.js'
import type { ParsedExposition } from '../support/exposition.js'
import { LogReceiver } from '../support/log-receiver.js'
import { startLoggingExporter } from '../support/logging-exporter.js'
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
 * Two exporters scraped by one real Prometheus (every second, each through a proxy that keeps
 * every scrape body) with the shipped alert rules loaded, then asked through Prometheus's HTTP
 * API what a user's Prometheus and Grafana would ask:
 * - `fs`: drives (two folders and a missing one);
 * - `logs`: shipping its log to a real HTTP receiver, so the log-target panels have data.
 */

const JOB = 'objstore-exporter'
const NAMESPACE = 'objstore'
const ALERTS = join(REPO_ROOT, 'config/alerts.yml')
const dashboard: unknown = JSON.parse(
  readFileSync(join(REPO_ROOT, 'grafana/dashboards/objstore-exporter.json'), 'utf8'),
)

/**
 * Families no source in this test emits, and why. A panel query naming one is reported as
 * skipped with the reason; any other query without data fails.
 */
const NOT_EMITTED_HERE: Partial<Record<FamilyKey, string>> = {
  bucketQuotaTotalBytes: 'a source that knows bucket quotas (none of fs, s3 does)',
}
const NOT_EMITTED_GROUPS: Partial<Record<(typeof catalogue)[FamilyKey]['group'], string>> = {
  usage: 'the bucket scanner (issue 3, not on main yet)',
  scanner: 'the bucket scanner (issue 3, not on main yet)',
}

interface Target {
  readonly name: string
  readonly proxy: RecordingProxy
  close(): Promise<void>
}

describe('a real Prometheus scraping the exporter', { skip: promtoolSkipReason() }, () => {
  let scratch: string
  let missingDrive: string
  let receiver: LogReceiver
  const targets: Target[] = []
  let prometheus: RunningPrometheus
  const target = (name: string) => targets.find((candidate) => candidate.name === name) as Target

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-e2e-'))
    const drives = [join(scratch, 'disk1'), join(scratch, 'disk2')]
    for (const drive of drives) await mkdir(drive)
    // A third configured drive that does not exist: offline, so ObjstoreDriveOffline has a case.
    missingDrive = join(scratch, 'disk3')

    const exporters: Array<[string, Record<string, string>]> = [
      ['fs', { DRIVES: [...drives, missingDrive].join(','), EC_PARITY: '1' }],
    ]
    for (const [name, env] of exporters) {
      const exporter = await startExporter(env)
      targets.push({
        name,
        proxy: await startRecordingProxy(exporter.baseUrl),
        close: () => exporter.close(),
      })
    }
    receiver = await LogReceiver.start()
    const shipping = await startLoggingExporter(receiver)
    targets.push({
      name: 'logs',
      proxy: await startRecordingProxy(shipping.baseUrl),
      close: () => shipping.close(),
    })
    prometheus = await startPrometheus({
      scrapeConfigs: [
        {
          job_name: JOB,
          static_configs: targets.map(({ name, proxy }) => ({
            targets: [proxy.target],
            labels: { source_kind: name },
          })),
        },
      ],
      ruleFiles: [ALERTS],
    })
    await eventually('two scrapes of every target stored by Prometheus', 30_000, async () => {
      const stored = await prometheus.query(`count_over_time(up{job="${JOB}"}[5m]) >= 2`)
      return stored.length === targets.length ? true : undefined
    })
  })

  after(async () => {
    await prometheus?.close()
    for (const { proxy, close } of targets) {
      await proxy.close()
      await close()
    }
    await receiver?.close()
    await rm(scratch, { recursive: true, force: true })
  })

  test('every target is up', async () => {
    const up = await prometheus.query(`up{job="${JOB}"}`)
    assert.deepEqual(up.map((sample) => [sample.metric.source_kind, sample.value]).sort(), [
      ['fs', 1],
      ['logs', 1],
    ])
  })

  test('Prometheus stored exactly the figures each exporter served, scrape by scrape', async () => {
    const names = familyKeys.flatMap((key) => {
      const name = fullName(NAMESPACE, key)
      return catalogue[key].type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name]
    })
    const stored = await prometheus.samples(`{__name__=~"${names.join('|')}", job="${JOB}"}[5m]`)
    const compared = new Set<string>()
    for (const series of stored) {
      const { __name__: name = '', job: _job, instance, source_kind: _kind, ...labels } = series.metric
      const served = targets.find(({ proxy }) => proxy.target === instance)?.proxy.scrapes ?? []
      assert.ok(served.length >= 2, `${instance}: ${served.length} scrapes recorded`)
      // A family can join later (a source's first result): compare the scrapes that carry it.
      const servedValues = served.flatMap((scrape) => valuesIn(scrape, name, labels))
      assert.ok(series.values.length >= 2, `${name}: ${series.values.length} samples stored`)
      // In order, each stored sample is a served one. Not always all of them: Prometheus may not
      // have committed the newest scrape yet, or may have given up on a slow one (1 s timeout).
      assert.ok(
        isSubsequence(series.values, servedValues),
        `${instance} ${name} ${JSON.stringify(labels)}: stored ${series.values.join(',')} but served ${servedValues.join(',')}`,
      )
      compared.add(name)
    }
    // Every family some source here emits went through.
    const expected = familyKeys
      .filter((key) => !NOT_EMITTED_HERE[key] && !NOT_EMITTED_GROUPS[catalogue[key].group])
      .map((key) => fullName(NAMESPACE, key) + (catalogue[key].type === 'histogram' ? '_count' : ''))
    assert.deepEqual(
      expected.filter((name) => !compared.has(name)),
      [],
    )
  })

  test('drive and cluster capacity: the figures statfs gives, two of three drives online, parity 1', async () => {
    const fs = target('fs').proxy.scrapes.at(-1) as ParsedExposition
    assert.equal(valueIn(fs, `${NAMESPACE}_cluster_drive_online_total`, {}), 2)
    assert.equal(valueIn(fs, `${NAMESPACE}_cluster_drive_offline_total`, {}), 1)
    assert.equal(valueIn(fs, `${NAMESPACE}_node_drive_online`, { drive: missingDrive }), 0)
    const rawTotal = valueIn(fs, `${NAMESPACE}_cluster_capacity_raw_total_bytes`, {})
    assert.equal(
      valueIn(fs, `${NAMESPACE}_cluster_capacity_usable_total_bytes`, {}),
      Math.floor((rawTotal * 2) / 3),
    )
    const [usable] = await prometheus.query(
      `${NAMESPACE}_cluster_capacity_usable_total_bytes{source_kind="fs"}`,
    )
    assert.equal(usable?.value, Math.floor((rawTotal * 2) / 3))
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
    assert.deepEqual(
      rules
        .filter((rule) => rule.health !== 'ok')
        .map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`),
      [],
    )
  })

  test('real alerts: the offline drive is pending, the exporter is quiet', async () => {
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
      if (notEmittedHere(metricNames(fillGrafanaVariables(variable.selector)))) continue
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
        const reason = notEmittedHere(metricNames(expr))
        if (reason) {
          t.skip(`no data here: ${reason}`)
          return
        }
        const result = await prometheus.query(expr)
        assert.ok(result.length > 0, `no data for ${expr}`)
      })
    }
  })
})

function isSubsequence(stored: readonly number[], served: readonly number[]): boolean {
  let next = 0
  for (const value of stored) {
    while (next < served.length && served[next] !== value) next++
    if (next === served.length) return false
    next++
  }
  return true
}

/** Why a query can have no data in this test (a family no source here emits), or undefined. */
function notEmittedHere(names: readonly string[]): string | undefined {
  const reasons = new Set<string>()
  for (const name of names) {
    const key = familyOf(name, NAMESPACE)
    if (!key) continue
    const reason = NOT_EMITTED_HERE[key] ?? NOT_EMITTED_GROUPS[catalogue[key].group]
    if (reason) reasons.add(`${name} needs ${reason}`)
  }
  return reasons.size > 0 ? [...reasons].join('; ') : undefined
}

/** The value of the one series `name{labels}` (exactly these labels) in a scrape, if served. */
function valuesIn(
  scrape: ParsedExposition,
  name: string,
  labels: Readonly<Record<string, string>>,
): number[] {
  const found = scrape.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  assert.ok(found.length <= 1, `${name}${JSON.stringify(labels)} served ${found.length} times in one scrape`)
  return found.map((sample) => sample.value)
}

function valueIn(scrape: ParsedExposition, name: string, labels: Readonly<Record<string, string>>): number {
  const [value, ...more] = valuesIn(scrape, name, labels)
  assert.ok(value !== undefined && more.length === 0, `${name}${JSON.stringify(labels)} not served`)
  return value
}
