import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'
import { buildDashboard } from '../../scripts/dashboard/definition.js'
import { DATASOURCE, type Dashboard, type Panel } from '../../scripts/dashboard/grafana.js'
import { DASHBOARD_PATH } from '../../scripts/generate-dashboard.js'
import { GRAFANA_ALL_VALUES } from '../support/promql.js'
import { REPO_ROOT } from '../support/promtool.js'

const committed = JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as Dashboard

test('the committed dashboard JSON is what scripts/dashboard/definition.ts generates (npm run dashboard)', () => {
  assert.deepEqual(committed, JSON.parse(JSON.stringify(buildDashboard())))
})

test('panels have unique ids and fit the 24-column grid without overlapping', () => {
  const ids = committed.panels.map((panel) => panel.id)
  assert.equal(new Set(ids).size, ids.length)
  const cells = new Map<string, string>()
  for (const panel of committed.panels) {
    const { x, y, w, h } = panel.gridPos
    assert.ok(x >= 0 && w > 0 && x + w <= 24, `${panel.title}: x=${x} w=${w}`)
    for (let row = y; row < y + h; row++) {
      for (let column = x; column < x + w; column++) {
        const owner = cells.get(`${row}:${column}`)
        assert.equal(owner, undefined, `${panel.title} overlaps ${owner} at row ${row}, column ${column}`)
        cells.set(`${row}:${column}`, panel.title)
      }
    }
  }
})

test('every query panel reads the datasource variable and has distinct refIds', () => {
  assert.equal(DATASOURCE.uid, '$' + '{datasource}')
  // Rows and text notes query nothing.
  const queryPanels = committed.panels.filter(
    (panel): panel is Panel => panel.type !== 'row' && panel.type !== 'text',
  )
  assert.ok(queryPanels.length >= 30, `expected a full dashboard, found ${queryPanels.length} panels`)
  for (const panel of queryPanels) {
    assert.deepEqual(panel.datasource, DATASOURCE, panel.title)
    const targets = panel.targets ?? []
    assert.ok(targets.length > 0, `${panel.title}: no query`)
    assert.equal(new Set(targets.map((target) => target.refId)).size, targets.length, panel.title)
    for (const target of targets) assert.deepEqual(target.datasource, panel.datasource, panel.title)
  }
})

test('every variable a query uses is defined, and every defined variable is used', () => {
  const defined = new Set(committed.templating.list.map((variable) => variable.name))
  assert.deepEqual([...defined], ['datasource', 'job', 'instance', 'bucket'])
  const texts = [
    ...committed.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ...committed.templating.list.map((variable) => variable.query),
  ]
  const used = new Set(texts.flatMap((text) => [...text.matchAll(/\$\{?(\w+)\}?/g)].map((match) => match[1])))
  for (const name of used) {
    assert.ok(
      defined.has(name ?? '') || (name ?? '').startsWith('__'),
      `variable $${name} is used but not defined`,
    )
    assert.ok(
      name === undefined || name in GRAFANA_ALL_VALUES || name === 'datasource',
      `no test value for $${name}`,
    )
  }
  for (const name of ['job', 'instance', 'bucket']) assert.ok(used.has(name), `$${name} is never used`)
})

test('table columns are renamed one to one from their queries', () => {
  for (const panel of committed.panels.filter((candidate) => candidate.type === 'table')) {
    const organize = panel.transformations?.find((transformation) => transformation.id === 'organize')
    const renamed = Object.keys((organize?.options.renameByName as Record<string, string>) ?? {})
    const expected =
      panel.targets?.length === 1
        ? ['Value']
        : (panel.targets ?? []).map((target) => `Value #${target.refId}`)
    assert.deepEqual(renamed, expected, panel.title)
  }
})

test('issue 5 panels are all there', () => {
  const titles = committed.panels.map((panel) => panel.title)
  for (const title of [
    'Usable capacity',
    'Drives',
    'Drive free ratio',
    'Top buckets by size',
    'Top buckets by growth (24h)',
    'Object size distribution',
    'Object size quantiles',
    'Backup freshness',
    'Incomplete multipart uploads',
    'Scans per bucket',
    'Targets up',
  ]) {
    assert.ok(titles.includes(title), `missing panel ${title}`)
  }
  const drives = committed.panels.find((panel) => panel.title === 'Drives' && panel.type === 'table')
  assert.ok(
    drives?.targets?.some((target) => target.expr.includes('deriv(')),
    'drives table has no time to full',
  )
})

test('another namespace changes every exporter metric name and the uid', () => {
  const minio = JSON.stringify(buildDashboard('minio'))
  assert.doesNotMatch(minio, /objstore_/)
  assert.match(minio, /minio_node_drive_free_bytes/)
  assert.equal(buildDashboard('minio').uid, 'objstore-exporter-minio')
})

test('the provisioning files point Grafana at Prometheus and at the dashboards folder', () => {
  const datasources = parse(
    readFileSync(join(REPO_ROOT, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8'),
  ) as { datasources: Array<{ type: string; url: string }> }
  assert.equal(datasources.datasources[0]?.type, 'prometheus')
  assert.match(datasources.datasources[0]?.url ?? '', /^http:\/\/prometheus:9090$/)
  const providers = parse(
    readFileSync(join(REPO_ROOT, 'grafana/provisioning/dashboards/objstore-exporter.yml'), 'utf8'),
  ) as { providers: Array<{ type: string; options: { path: string } }> }
  assert.equal(providers.providers[0]?.type, 'file')
  assert.equal(providers.providers[0]?.options.path, '/etc/grafana/dashboards/objstore-exporter')
})

test('"Where the bytes went": says which opt-in groups it needs, and each empty panel names the setting', () => {
  const start = committed.panels.findIndex(
    (panel) => panel.type === 'row' && panel.title === 'Where the bytes went',
  )
  assert.ok(start >= 0, 'no "Where the bytes went" row')
  const end = committed.panels.findIndex((panel, index) => index > start && panel.type === 'row')
  const row = committed.panels.slice(start + 1, end)
  const [about, ...queried] = row
  assert.equal(about?.type, 'text')
  assert.match(
    String((about?.options as { content?: string } | undefined)?.content),
    /BUCKET_METRICS=default,age,hidden,prefixes,info/,
  )
  assert.deepEqual(
    queried.map((panel) => panel.title),
    [
      'Reclaimable bytes by bucket',
      'Top prefixes per bucket',
      'Largest prefixes',
      'Bytes by age',
      'Noncurrent bytes by time noncurrent',
      'Storage class x age',
      'Largest object',
    ],
  )
  for (const panel of queried) {
    assert.match(
      panel.fieldConfig?.defaults.noValue ?? '',
      /^No data: needs BUCKET_METRICS with \w+/,
      panel.title,
    )
  }
  const panel = (title: string) => queried.find((candidate) => candidate.title === title) as Panel
  // The reclaimable bytes are the recording rule's, beside owner, versioning and lifecycle.
  for (const target of panel('Reclaimable bytes by bucket').targets ?? []) {
    assert.match(target.expr, /group_left \(owner, versioning, lifecycle\) max by .*objstore_bucket_info\{/)
  }
  assert.match(
    panel('Reclaimable bytes by bucket').targets?.[0]?.expr ?? '',
    /bucket:objstore_reclaimable_bytes:sum\{/,
  )
  const recorded = parse(readFileSync(join(REPO_ROOT, 'config/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ record?: string }> }>
  }
  const records = recorded.groups.flatMap((group) => group.rules.flatMap((rule) => rule.record ?? []))
  assert.ok(records.includes('bucket:objstore_reclaimable_bytes:sum'))
  assert.ok(records.includes('bucket:objstore_reclaimable_bytes_per_stored_bytes:ratio'))
  // The `_other` remainder of each bucket is shown, and marked as such.
  const prefixColumn = panel('Top prefixes per bucket').fieldConfig?.overrides.find(
    (override) => override.matcher.options === 'prefix',
  )
  assert.match(JSON.stringify(prefixColumn), /"_other":\{"text":"\(all other prefixes\)"/)
  // One query per band, youngest first, so the stack is in age order.
  assert.deepEqual(
    panel('Bytes by age').targets?.map((target) => [
      /age="(\w+)"/.exec(target.expr)?.[1],
      target.legendFormat,
    ]),
    [
      ['lt_1d', 'under 1 day'],
      ['lt_7d', '1 to 7 days'],
      ['lt_30d', '7 to 30 days'],
      ['lt_90d', '30 to 90 days'],
      ['lt_180d', '90 to 180 days'],
      ['lt_365d', '180 to 365 days'],
      ['gte_365d', 'a year or more'],
    ],
  )
  assert.match(panel('Bytes by age').targets?.[0]?.expr ?? '', /bucket=~"\$bucket", age="lt_1d"/)
  assert.deepEqual(panel('Bytes by age').fieldConfig?.defaults.custom?.stacking, {
    mode: 'normal',
    group: 'A',
  })
})
