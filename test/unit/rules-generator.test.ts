import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'
import { parameterProblems, RULE_PARAMETERS } from '../../scripts/rules/parameters.js'
import { generatedGroups, renderAlertsFile } from '../../scripts/rules/render.js'
import { rebaseRunbookUrls } from '../../scripts/rules/runbook.js'
import { REPO_ROOT } from '../support/promtool.js'

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')

test('config/alerts.yml and its tests are what the generator writes (npm run prometheusrule)', () => {
  const alerts = read('config/alerts.yml')
  assert.equal(renderAlertsFile(alerts, RULE_PARAMETERS), alerts)
  const tests = read('config/alerts.test.yml')
  assert.equal(rebaseRunbookUrls(tests, RULE_PARAMETERS), tests)
})

test('every runbook_url follows one base: another base rewrites every link, hand-written ones included', () => {
  const base = 'https://wiki.example.com/objstore-runbook'
  const rendered = renderAlertsFile(read('config/alerts.yml'), { ...RULE_PARAMETERS, runbookBase: base })
  const alerts = (parse(rendered) as { groups: Array<{ rules: Array<Record<string, unknown>> }> }).groups
    .flatMap((group) => group.rules)
    .filter((rule) => rule.alert)
  assert.ok(alerts.length >= 20)
  for (const rule of alerts) {
    const { runbook_url } = rule.annotations as Record<string, string>
    assert.equal(runbook_url, `${base}#${String(rule.alert).toLowerCase()}`)
  }
  assert.ok(!rendered.includes(RULE_PARAMETERS.runbookBase))
})

test('the windows and thresholds are parameters: the generated rules change with them', () => {
  const parameters = {
    ...RULE_PARAMETERS,
    capacity: { ...RULE_PARAMETERS.capacity, windowSeconds: 12 * 3600 },
    quota: { ...RULE_PARAMETERS.quota, usedAbove: 0.75 },
  }
  const text = JSON.stringify(generatedGroups(parameters))
  assert.match(text, /deriv\(cluster:objstore_usable_capacity_free_bytes:max\[12h\]\)/)
  assert.match(text, /bucket:objstore_bucket_quota_total_bytes:max > 0.75/)
  assert.doesNotMatch(text, /\[6h\]/)
})

test('a window under 3 scan intervals, a share outside (0, 1) or a relative runbook base is refused', () => {
  assert.deepEqual(parameterProblems(RULE_PARAMETERS), [])
  const problems = parameterProblems({
    ...RULE_PARAMETERS,
    runbookBase: 'docs/runbook.md',
    quota: { ...RULE_PARAMETERS.quota, windowSeconds: 600, usedAbove: 60 },
  })
  assert.deepEqual(problems, [
    'quota.windowSeconds: 600 s is under 3 scan intervals (900 s): a scan is one step',
    'quota.usedAbove: 60 is not a share between 0 and 1',
    'runbookBase: "docs/runbook.md" is not an absolute http(s) URL without #',
  ])
  assert.throws(
    () => generatedGroups({ ...RULE_PARAMETERS, scanIntervalSeconds: 3 * 3600 }),
    /3 scan intervals/,
  )
})
