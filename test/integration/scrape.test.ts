import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { RUNTIME_FAMILY_PREFIXES } from '../../src/collectors/runtime.js'
import type { Collector } from '../../src/collectors/types.js'
import { exposedFamily } from '../../src/metrics/families.js'
import { rawGet, startExporter } from '../support/exporter.js'
import { parseExposition, sampleValue, significantDigits } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'

const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

test('a scrape emits only catalogue families (plus runtime ones), with the catalogue help and type', async (t) => {
  const exporter = await startExporter({ METRICS_NAMESPACE: 'minio' })
  t.after(() => exporter.close())
  const scrape = await exporter.scrape()
  const declared = new Map(
    familyNames.map((key) => {
      const { name, type } = exposedFamily('minio', catalogue[key])
      return [name, { ...catalogue[key], type }]
    }),
  )
  assert.ok(scrape.types.size > 10)
  for (const [name, type] of scrape.types) {
    const definition = declared.get(name)
    if (definition) {
      assert.equal(type, definition.type, name)
      assert.equal(scrape.help.get(name), definition.help, name)
    } else {
      assert.ok(
        RUNTIME_FAMILY_PREFIXES.some((prefix) => name.startsWith(prefix)),
        `${name} is neither in the catalogue nor a runtime family`,
      )
    }
  }
  // MinIO-compatible names under METRICS_NAMESPACE=minio.
  assert.ok(sampleValue(scrape, 'minio_cluster_capacity_raw_total_bytes') > 0)
  assert.ok(sampleValue(scrape, 'minio_node_drive_total_bytes', { drive: exporter.config.DATA_DIR }) > 0)
  assert.equal(sampleValue(scrape, 'minio_exporter_build_info').valueOf(), 1)
  assert.ok(scrape.samples.some((sample) => sample.name === 'process_resident_memory_bytes'))
  assert.ok(
    !scrape.types.has('nodejs_active_handles_total'),
    'the misnamed prom-client gauges are not served',
  )
})

test('a throwing and a never-resolving collector do not fail the scrape; the header bounds the wait', async (t) => {
  const throwing: Collector = {
    name: 'throwing',
    families: {},
    collect() {
      throw new Error('boom')
    },
  }
  const hanging: Collector = { name: 'hanging', families: {}, collect: () => new Promise(() => {}) }
  const exporter = await startExporter(
    { SCRAPE_TIMEOUT_SECONDS: '30' },
    { extraCollectors: [throwing, hanging] },
  )
  t.after(() => exporter.close())
  // Prometheus says it gives up after 0.5 s: collectors get 90% of that, not the configured 30 s.
  const scrape = await exporter.scrape({ 'X-Prometheus-Scrape-Timeout-Seconds': '0.5' })
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'drives' }), 1)
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'throwing' }), 0)
  assert.equal(sampleValue(scrape, 'objstore_scrape_collector_success', { collector: 'hanging' }), 0)
  const waited = sampleValue(scrape, 'objstore_scrape_collector_duration_seconds', { collector: 'hanging' })
  assert.ok(
    waited >= 0.44 && waited < 30,
    `the hanging collector was cut at the header's budget (${waited}s)`,
  )
  assert.ok(sampleValue(scrape, 'objstore_cluster_drives') === 1, 'healthy collectors still report')
  const failures = exporter.logs.lines
    .filter((line) => line.msg === 'collector failed')
    .map((line) => line.collector)
  assert.deepEqual(failures.sort(), ['hanging', 'throwing'])
})

test('OpenMetrics when Prometheus asks for it, text 0.0.4 otherwise', async (t) => {
  const exporter = await startExporter()
  t.after(() => exporter.close())
  const url = `${exporter.baseUrl}/metrics`
  const openMetrics = await rawGet(url, { Accept: PROMETHEUS_ACCEPT })
  assert.equal(openMetrics.status, 200)
  assert.equal(
    openMetrics.headers['content-type'],
    'application/openmetrics-text; version=1.0.0; charset=utf-8',
  )
  const body = openMetrics.body.toString('utf8')
  assert.ok(body.endsWith('# EOF\n'))
  assert.match(body, /^# TYPE process_cpu_user_seconds counter$/m, 'counter family named without _total')
  assert.match(body, /^process_cpu_user_seconds_total \S+$/m)
  const text = await rawGet(url)
  assert.equal(text.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  assert.ok(!text.body.toString('utf8').includes('# EOF'))
})

test('gzip when the client accepts it, and the same content', async (t) => {
  const exporter = await startExporter()
  t.after(() => exporter.close())
  const url = `${exporter.baseUrl}/metrics`
  const zipped = await rawGet(url, { 'Accept-Encoding': 'gzip, deflate' })
  assert.equal(zipped.headers['content-encoding'], 'gzip')
  assert.match(String(zipped.headers.vary), /Accept-Encoding/)
  const plain = await rawGet(url, { 'Accept-Encoding': 'identity' })
  assert.equal(plain.headers['content-encoding'], undefined)
  // The exporter's own families; runtime ones may appear between two scrapes (the first GC).
  const names = (text: string) =>
    [...parseExposition(text).types.keys()].filter((name) => name.startsWith('objstore_'))
  assert.deepEqual(names(gunzipSync(zipped.body).toString('utf8')), names(plain.body.toString('utf8')))
  const refused = await rawGet(url, { 'Accept-Encoding': 'gzip;q=0' })
  assert.equal(refused.headers['content-encoding'], undefined)
})

test('promtool check metrics finds nothing to complain about in a real scrape', async (t) => {
  const skip = promtoolSkipReason()
  if (skip) return t.skip(skip)
  const exporter = await startExporter({ DRIVES: `${process.cwd()},/nonexistent/drive` })
  t.after(() => exporter.close())
  const text = (await rawGet(`${exporter.baseUrl}/metrics`)).body.toString('utf8')
  assert.equal(promtoolCheckMetrics(text), '')
  // Every family a real type; no value printed with binary noise (durations in whole nanoseconds).
  assert.deepEqual(text.match(/^# TYPE \S+ untyped$/gm), null)
  const values = text.split('\n').filter((line) => line && !line.startsWith('#'))
  assert.ok(values.some((line) => line.startsWith('objstore_scrape_collector_duration_seconds{')))
  for (const line of values) {
    const value = line.slice(line.lastIndexOf(' ') + 1)
    assert.ok(Number.isInteger(Number(value)) || significantDigits(value) <= 15, line)
    if (/^objstore_\w+_duration_seconds[{ ]/.test(line)) assert.match(value, /^\d+(\.\d{1,9})?$/, line)
  }
})

test('health, readiness and the landing page', async (t) => {
  const exporter = await startExporter()
  t.after(() => exporter.close())
  const health = await rawGet(`${exporter.baseUrl}/healthz`)
  assert.equal(health.status, 200)
  assert.deepEqual(JSON.parse(health.body.toString()), { status: 'ok' })
  let ready = false
  exporter.exporter.readiness.add('test source', () => ready)
  const waiting = await rawGet(`${exporter.baseUrl}/readyz`)
  assert.equal(waiting.status, 503)
  assert.deepEqual(JSON.parse(waiting.body.toString()).waitingFor, ['test source'])
  ready = true
  assert.equal((await rawGet(`${exporter.baseUrl}/readyz`)).status, 200)
  const landing = await rawGet(`${exporter.baseUrl}/`)
  assert.equal(landing.status, 200)
  assert.match(String(landing.headers['content-type']), /^text\/html/)
  assert.match(landing.body.toString(), /<a href="\/metrics">/)
  assert.equal((await rawGet(`${exporter.baseUrl}/nope`)).status, 404)
})
