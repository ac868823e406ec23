import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import bcrypt from 'bcryptjs'
import { opensslSkipReason, TestPki } from '../support/certificates.js'
import { startExporter } from '../support/exporter.js'
import { startPrometheus } from '../support/prometheus.js'
import { promtoolSkipReason } from '../support/promtool.js'
import { waitForValue } from '../support/wait-for.js'

const skip = (await opensslSkipReason()) ?? promtoolSkipReason()

/**
 * A real Prometheus scraping an exporter set up by a web configuration file (HTTPS and basic
 * auth), as it would scrape node_exporter with the same file: one job with the right password,
 * one with a wrong one.
 */
test('Prometheus scrapes through the web config file: HTTPS and basic auth', { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'objstore-e2e-web-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const pki = new TestPki(dir)
  const root = await pki.authority('e2e-web-root')
  const server = await pki.issue('e2e-web-server', root, 'server')
  const webConfig = join(dir, 'web.yml')
  const hash = await bcrypt.hash('scrape-password', 10)
  await writeFile(
    webConfig,
    [
      'tls_server_config:',
      `  cert_file: ${server.certFile}`,
      `  key_file: ${server.keyFile}`,
      'basic_auth_users:',
      `  prometheus: ${hash}`,
      '',
    ].join('\n'),
  )
  await writeFile(join(dir, 'password'), 'scrape-password\n')
  const exporter = await startExporter({ WEB_CONFIG_FILE: webConfig })
  t.after(() => exporter.close())
  const target = exporter.baseUrl.replace(/^https:\/\//, '')
  const job = (name: string, passwordFile: string) => ({
    job_name: name,
    scheme: 'https',
    basic_auth: { username: 'prometheus', password_file: passwordFile },
    tls_config: { ca_file: root.certFile },
    static_configs: [{ targets: [target] }],
  })
  await writeFile(join(dir, 'wrong'), 'not-the-password\n')
  const prometheus = await startPrometheus({
    scrapeConfigs: [job('right', join(dir, 'password')), job('wrong', join(dir, 'wrong'))],
  })
  t.after(() => prometheus.close())
  const up = await waitForValue(
    'both jobs scraped twice',
    async () => {
      const samples = await prometheus.query('count_over_time(up[5m]) >= 2')
      if (samples.length < 2) return undefined
      return prometheus.query('up')
    },
    { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
  )
  assert.deepEqual(up.map((sample) => [sample.metric.job, sample.value]).sort(), [
    ['right', 1],
    ['wrong', 0],
  ])
  const drives = await prometheus.query('objstore_node_drive_total_bytes{job="right"}')
  assert.ok(drives.length > 0 && (drives[0]?.value ?? 0) > 0, prometheus.log())
  const targets = await prometheus.api<{
    activeTargets: Array<{ labels: { job: string }; lastError: string }>
  }>('targets')
  const wrong = targets.activeTargets.find((active) => active.labels.job === 'wrong')
  assert.match(wrong?.lastError ?? '', /401/)
})
