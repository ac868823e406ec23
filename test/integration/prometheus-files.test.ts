import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'
import { anchorsOf } from '../../scripts/markdown-links.js'
import { RULE_PARAMETERS } from '../../scripts/rules/parameters.js'
import { catalogue } from '../../src/collectors/catalogue.js'
import { promtool, promtoolSkipReason, REPO_ROOT } from '../support/promtool.js'

const needsPromtool = { skip: promtoolSkipReason() }

const CONFIG = 'config/prometheus.yml'
const exporterLabels = new Set<string>(Object.values(catalogue).flatMap((family) => [...family.labels]))
const RULES = 'config/alerts.yml'
const RULE_TESTS = 'config/alerts.test.yml'

test(
  'promtool check config accepts config/prometheus.yml (and the rule file it loads)',
  needsPromtool,
  async () => {
    const result = await promtool(['check', 'config', CONFIG])
    assert.equal(result.code, 0, result.output)
    assert.match(result.output, /SUCCESS: config\/prometheus.yml is valid/)
  },
)

test('promtool check rules accepts config/alerts.yml', needsPromtool, async () => {
  const result = await promtool(['check', 'rules', RULES])
  assert.equal(result.code, 0, result.output)
})

test('promtool test rules passes config/alerts.test.yml', needsPromtool, async () => {
  const result = await promtool(['test', 'rules', RULE_TESTS])
  assert.equal(result.code, 0, result.output)
  assert.match(result.output, /SUCCESS/)
})

/**
 * The commented variants of config/prometheus.yml are what users copy; uncommented one at a
 * time (each is a list of scrape jobs under a `# --- Variant:` heading), each must be valid.
 */
test(
  'every commented variant of config/prometheus.yml is a valid scrape configuration',
  needsPromtool,
  async () => {
    const text = readFileSync(join(REPO_ROOT, CONFIG), 'utf8')
    const variants = text.split(/^ {2}# --- Variant: /m).slice(1)
    assert.ok(variants.length >= 4, `expected at least 4 variants, found ${variants.length}`)
    const scratch = await mkdtemp(join(tmpdir(), 'objstore-prometheus-variant-'))
    try {
      for (const variant of variants) {
        const title = variant.slice(0, variant.indexOf('\n')).replace(/-+$/, '').trim()
        // The job lines are the commented lines from the first `- job_name:` on.
        const lines = variant.split('\n')
        const start = lines.findIndex((line) => /^ {2}# - job_name:/.test(line))
        assert.ok(start >= 0, `variant "${title}" has no job`)
        const jobs = lines
          .slice(start)
          .filter((line) => line.startsWith('  #'))
          .map((line) => line.replace(/^ {2}# ?/, '  '))
        // promtool insists that secret and certificate files exist: point them at empty files here.
        let config = `scrape_configs:\n${jobs.join('\n')}\n`
        for (const [, key, path] of config.matchAll(
          /(credentials_file|ca_file|cert_file|key_file): (\S+)/g,
        )) {
          const standIn = join(scratch, `${key}-${(path ?? '').replace(/\W/g, '_')}`)
          await writeFile(standIn, '')
          config = config.replace(`${key}: ${path}`, `${key}: ${standIn}`)
        }
        const file = join(scratch, 'prometheus.yml')
        await writeFile(file, config)
        const parsed = parse(config) as { scrape_configs: unknown[] }
        assert.ok(parsed.scrape_configs.length > 0, `variant "${title}" parsed to no job`)
        // A target label the exporter also sets would be renamed exported_<label> on its series
        // (honor_labels false), and alerts naming the exporter's label would name the wrong thing.
        for (const [, label] of config.matchAll(/target_label: (\w+)/g)) {
          assert.ok(
            !exporterLabels.has(label ?? ''),
            `variant "${title}" sets ${label}, a label of the exporter's own`,
          )
        }
        const result = await promtool(['check', 'config', file])
        assert.equal(result.code, 0, `variant "${title}":\n${jobs.join('\n')}\n${result.output}`)
      }
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  },
)

interface AlertRule {
  alert?: string
  record?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}
interface RuleTests {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>
}

test('every alert has a severity, summary, description and runbook_url, and is tested firing and silent', () => {
  const rules = (
    parse(readFileSync(join(REPO_ROOT, RULES), 'utf8')) as { groups: Array<{ rules: AlertRule[] }> }
  ).groups
    .flatMap((group) => group.rules)
    .filter((rule) => rule.alert)
  const cases = (parse(readFileSync(join(REPO_ROOT, RULE_TESTS), 'utf8')) as RuleTests).tests.flatMap(
    (unitTest) => unitTest.alert_rule_test ?? [],
  )
  assert.ok(rules.length >= 15)
  const runbook = readFileSync(join(REPO_ROOT, 'docs/runbook.md'), 'utf8')
  const anchors = anchorsOf(runbook)
  for (const rule of rules) {
    const name = rule.alert ?? ''
    assert.match(rule.labels?.severity ?? '', /^(critical|warning|info)$/, `${name}: severity`)
    for (const annotation of ['summary', 'description']) {
      assert.ok((rule.annotations?.[annotation] ?? '').length > 10, `${name}: annotation ${annotation}`)
    }
    // The convention (kube-prometheus, Alertmanager templates) is runbook_url: its own section,
    // an absolute link (Alertmanager cannot follow a relative one), under the one base.
    assert.equal(rule.annotations?.runbook, undefined, `${name}: runbook is spelt runbook_url`)
    assert.equal(
      rule.annotations?.runbook_url,
      `${RULE_PARAMETERS.runbookBase}#${name.toLowerCase()}`,
      `${name}: runbook_url`,
    )
    assert.match(new URL(rule.annotations?.runbook_url ?? '').protocol, /^https?:$/, `${name}: absolute`)
    assert.ok(anchors.has(name.toLowerCase()), `${name}: docs/runbook.md has no section ${name}`)
    const own = cases.filter((testCase) => testCase.alertname === name)
    assert.ok(
      own.some((testCase) => testCase.exp_alerts.length > 0),
      `${name}: no test in ${RULE_TESTS} shows it firing`,
    )
    assert.ok(
      own.some((testCase) => testCase.exp_alerts.length === 0),
      `${name}: no test in ${RULE_TESTS} shows it silent`,
    )
  }
})

test("docs/operations.md's Alerts section lists every alert of config/alerts.yml, and no other", () => {
  const page = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8')
  const start = page.indexOf('\n## Alerts\n')
  assert.ok(start >= 0, 'docs/operations.md has an Alerts section')
  const end = page.indexOf('\n## ', start + 1)
  const section = page.slice(start, end < 0 ? undefined : end)
  const listed = new Set([...section.matchAll(/`(Objstore[A-Za-z]+)`/g)].map((match) => match[1]))
  const rules = (
    parse(readFileSync(join(REPO_ROOT, RULES), 'utf8')) as { groups: Array<{ rules: AlertRule[] }> }
  ).groups
    .flatMap((group) => group.rules)
    .flatMap((rule) => (rule.alert ? [rule.alert] : []))
  assert.deepEqual([...listed].sort(), [...rules].sort())
})
