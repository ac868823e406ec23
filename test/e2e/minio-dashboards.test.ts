import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { startExporter } from '../support/exporter.js'
import { type RunningPrometheus, type Sample, startPrometheus } from '../support/prometheus.js'
import { fillGrafanaVariables } from '../support/promql.js'
import { promtoolSkipReason, REPO_ROOT } from '../support/promtool.js'
import { startXmlStore, versionedBucket, type XmlStore } from '../support/s3-xml-store.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { waitForValue } from '../support/wait-for.js'

/**
 * MinIO's own Grafana dashboards (cluster, node, bucket) against exporters in MinIO mode
 * (METRICS_NAMESPACE=minio, METRICS_SERVER_LABEL), through a real Prometheus: every panel that
 * docs/minio-compatibility.md claims (test/fixtures/minio-dashboards.json, each query as MinIO's
 * dashboard writes it) returns data, with the figures the stores hold, and every dashboard
 * variable finds values. Three exporters, one a MinIO node each as the dashboards see them:
 * - `node-1:9000`: fs, a data directory of two buckets, drives two folders and a missing one;
 * - `node-2:9000`: s3rver, a real S3 server, one bucket;
 * - `node-3:9000`: an S3 endpoint answering versioned listings (SCAN_VERSIONS=true).
 */

interface ClaimedPanel {
  readonly dashboard: string
  readonly panel: string
  readonly legend: string
  readonly expr: string
}

interface DashboardVariable {
  readonly dashboard: string
  readonly variable: string
  readonly query: string
}

const claimed = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/minio-dashboards.json'), 'utf8')) as {
  readonly variables: readonly DashboardVariable[]
  readonly panels: readonly ClaimedPanel[]
}

const JOB = 'minio-job'
const FS_SERVER = 'node-1:9000'
const GiB = 1024 ** 3
/** What Grafana puts in place of the dashboards' variables, the node dashboard showing node-1. */
const VARIABLES = { scrape_jobs: JOB, server: FS_SERVER, __rate_interval: '1m' }

/**
 * What each claimed panel must show beyond ">= 1 series, every value a finite number >= 0",
 * by `dashboard / panel / legend`: the figures of the stores set up below.
 */
const PLAUSIBLE: Readonly<Record<string, (result: readonly Sample[]) => void>> = {
  'MinIO Dashboard / Capacity / Used': ([used]) => assert.ok((used?.value ?? 0) > 0),
  'MinIO Dashboard / Capacity / Free': ([free]) => assert.ok((free?.value ?? 0) > 0),
  // The largest store: the fs node's 72,100 + 5,000 bytes.
  'MinIO Dashboard / Data Usage Growth / Usage': ([usage]) => assert.equal(usage?.value, 77_100),
  'MinIO Dashboard / Object Size Distribution / {{range}}': (result) => {
    assert.deepEqual(rangesOf(result, { server: FS_SERVER }), FS_SIZE_RANGES)
    assert.equal(rangesOf(result, { server: 'node-2:9000' }).LESS_THAN_1024_B, 2)
  },
  'MinIO Dashboard / Total Online/Offline Drives / online': ([online]) => assert.equal(online?.value, 2),
  'MinIO Dashboard / Total Online/Offline Drives / offline': ([offline]) => assert.equal(offline?.value, 1),
  'MinIO Dashboard / Number of Buckets / ': ([buckets]) => assert.equal(buckets?.value, 2),
  'MinIO Dashboard / Number of Objects / ': ([objects]) => assert.equal(objects?.value, 4),
  'MinIO Dashboard / Time Since Last Scan / ': ([age]) => assert.ok((age?.value ?? Infinity) < 600e9),
  'MinIO Node Dashboard / Total Drives / ': ([drives]) => assert.equal(drives?.value, 3),
  'MinIO Node Dashboard / Total Online/Offline Drives / online': ([online]) => assert.equal(online?.value, 2),
  'MinIO Node Dashboard / Total Online/Offline Drives / offline': ([offline]) =>
    assert.equal(offline?.value, 1),
  'MinIO Node Dashboard / Drive Usage / Total [{{drive}}]': (result) => {
    assert.equal(result.length, 2, 'the two online drives')
    for (const { value } of result) assert.ok(value > 0 && value < 1024 * 1024 * GiB)
  },
  'MinIO Node Dashboard / Drive Errors / [{{drive}}]': (result) => {
    const errors = byLabel(result, 'drive')
    assert.ok((errors[missingDrive()] ?? 0) >= 1, `the missing drive: ${JSON.stringify(errors)}`)
    assert.equal(Object.values(errors).filter((value) => value > 0).length, 1)
  },
  'MinIO Node Dashboard / Drive Timeout Errors / [{{drive}}]': (result) =>
    assert.deepEqual(
      result.map(({ value }) => value),
      [0, 0, 0],
    ),
  'MinIO Node Dashboard / IO Operations Waiting / [{{drive}}]': (result) =>
    assert.deepEqual(
      result.map(({ value }) => value),
      [0, 0, 0],
    ),
  'MinIO Bucket Dashboard / Object Size Distribution / {{bucket,range}}': (result) => {
    const logs = rangesOf(result, { bucket: 'logs' })
    assert.equal(logs.BETWEEN_1024_B_AND_64_KB, 1)
    assert.equal(logs.BETWEEN_64_KB_AND_256_KB, 1)
  },
  'MinIO Bucket Dashboard / Object Version Distribution / {{bucket,range}}': (result) => {
    const versioned = rangesOf(result, { bucket: 'versioned' })
    assert.equal(versioned.BETWEEN_2_AND_10, 2, 'two keys of two versions each')
  },
  'MinIO Bucket Dashboard / Usage Rate / Usage [{{bucket}}]': (result) =>
    assert.deepEqual(
      result.map(({ value }) => value),
      result.map(() => 0),
      'nothing written while Prometheus watched',
    ),
  'MinIO Bucket Dashboard / Objects / {{bucket}}': (result) =>
    assert.deepEqual(byLabel(result, 'bucket'), { logs: 3, backups: 1, photos: 3, versioned: 1 }),
  'MinIO Bucket Dashboard / Versions / {{bucket}}': (result) =>
    assert.deepEqual(byLabel(result, 'bucket'), { versioned: 4 }),
  'MinIO Bucket Dashboard / Delete Markers / {{bucket}}': (result) =>
    assert.deepEqual(byLabel(result, 'bucket'), { versioned: 1 }),
  'MinIO Bucket Dashboard / Time Elapsed Since Last Scan (nanos) / {{server}}': (result) =>
    assert.deepEqual(result.map(({ metric }) => metric.server).sort(), [
      'node-1:9000',
      'node-2:9000',
      'node-3:9000',
    ]),
}

/** fs node: 100 B, 2,000 B and 70,000 B in `logs`, 5,000 B in `backups`. */
const FS_SIZE_RANGES = {
  LESS_THAN_1024_B: 1,
  BETWEEN_1024_B_AND_64_KB: 2,
  BETWEEN_64_KB_AND_256_KB: 1,
  BETWEEN_256_KB_AND_512_KB: 0,
  BETWEEN_512_KB_AND_1_MB: 0,
  BETWEEN_1024B_AND_1_MB: 3,
  BETWEEN_1_MB_AND_10_MB: 0,
  BETWEEN_10_MB_AND_64_MB: 0,
  BETWEEN_64_MB_AND_128_MB: 0,
  BETWEEN_128_MB_AND_512_MB: 0,
  GREATER_THAN_512_MB: 0,
}

let scratch = ''
const missingDrive = () => join(scratch, 'disk3')

describe("MinIO's Grafana dashboards on exporters in MinIO mode", { skip: promtoolSkipReason() }, () => {
  let s3rver: S3rverProcess
  let xmlStore: XmlStore
  const closers: Array<() => Promise<void>> = []
  let prometheus: RunningPrometheus

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-minio-e2e-'))
    const drives = [join(scratch, 'disk1'), join(scratch, 'disk2')]
    for (const drive of drives) await mkdir(drive)
    const dataDir = join(scratch, 'data')
    const files = { 'logs/a.log': 100, 'logs/b.log': 2000, 'logs/sub/c.log': 70_000, 'backups/db.dump': 5000 }
    for (const [path, size] of Object.entries(files)) {
      await mkdir(dirname(join(dataDir, path)), { recursive: true })
      await writeFile(join(dataDir, path), Buffer.alloc(size))
    }
    s3rver = await startS3rver()
    await fillBucket(s3rver.client, 'photos', [
      { key: 'a.jpg', size: 10 },
      { key: 'b.jpg', size: 20 },
      { key: 'c.jpg', size: 3000 },
    ])
    // k1 and k2 with two versions each, k2 deleted; no uploads.
    xmlStore = await startXmlStore([versionedBucket({ uploads: false })], 1000)
    const minioMode = (server: string) => ({ METRICS_NAMESPACE: 'minio', METRICS_SERVER_LABEL: server })
    const exporters = [
      { ...minioMode(FS_SERVER), DATA_DIR: dataDir, DRIVES: [...drives, missingDrive()].join(',') },
      { ...minioMode('node-2:9000'), ...s3rver.exporterEnv, DRIVES: drives[0] as string },
      { ...minioMode('node-3:9000'), ...xmlStore.exporterEnv, DRIVES: drives[0] as string },
    ]
    const targets: string[] = []
    for (const env of exporters) {
      const exporter = await startExporter(env)
      closers.push(() => exporter.close())
      targets.push(new URL(exporter.baseUrl).host)
    }
    prometheus = await startPrometheus({
      scrapeConfigs: [{ job_name: JOB, static_configs: [{ targets }] }],
    })
    await waitForValue(
      'three scrapes of every exporter stored by Prometheus',
      async () => {
        const stored = await prometheus.query(`count_over_time(up{job="${JOB}"}[5m]) >= 3`)
        return stored.length === targets.length ? true : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
    )
  })

  after(async () => {
    await prometheus?.close()
    for (const close of closers) await close()
    await xmlStore?.close()
    await s3rver?.stop()
    await rm(scratch, { recursive: true, force: true })
  })

  test('every dashboard variable finds values; $server finds each exporter', async () => {
    for (const { dashboard, variable, query } of claimed.variables) {
      const [, metric, label] = /^label_values\((?:(\w+),\s*)?(\w+)\)$/.exec(query) ?? []
      assert.ok(label, `${dashboard} $${variable}: ${query} is not label_values(...)`)
      const values = await prometheus.api<string[]>(
        `label/${label}/values`,
        metric ? { 'match[]': metric } : {},
      )
      const expected = variable === 'server' ? ['node-1:9000', 'node-2:9000', 'node-3:9000'] : [JOB]
      assert.deepEqual(
        values.filter((value) => expected.includes(value)),
        expected,
        `${dashboard} $${variable}`,
      )
    }
  })

  test('every claimed panel has a plausibility check here', () => {
    const keys = claimed.panels.map(keyOf)
    assert.deepEqual(
      Object.keys(PLAUSIBLE).filter((key) => !keys.includes(key)),
      [],
      'checks for panels the fixture does not claim',
    )
  })

  describe('every claimed panel returns data', () => {
    for (const panel of claimed.panels) {
      test(keyOf(panel), async () => {
        const expr = fillGrafanaVariables(panel.expr, VARIABLES)
        const result = await prometheus.query(expr)
        assert.ok(result.length > 0, `no data for ${expr}`)
        for (const { metric, value } of result) {
          assert.ok(Number.isFinite(value) && value >= 0, `${JSON.stringify(metric)} ${value}`)
        }
        PLAUSIBLE[keyOf(panel)]?.(result)
      })
    }
  })
})

test('docs/minio-compatibility.md names every claimed panel as working', () => {
  const page = readFileSync(join(REPO_ROOT, 'docs/minio-compatibility.md'), 'utf8')
  const working = page.split('\n').filter((line) => /^\| .* \| works \|/.test(line))
  for (const { dashboard, panel } of claimed.panels) {
    assert.ok(
      working.some((line) => line.split(' | ')[0]?.includes(panel)),
      `${dashboard} / ${panel}: no "works" row names it`,
    )
  }
})

function keyOf(panel: ClaimedPanel): string {
  return `${panel.dashboard} / ${panel.panel} / ${panel.legend}`
}

/** Values by one label's value. */
function byLabel(result: readonly Sample[], label: string): Record<string, number> {
  return Object.fromEntries(result.map(({ metric, value }) => [metric[label] ?? '', value]))
}

/** The `range` values of the series whose labels include `labels`. */
function rangesOf(
  result: readonly Sample[],
  labels: Readonly<Record<string, string>>,
): Record<string, number> {
  const matching = result.filter(({ metric }) =>
    Object.entries(labels).every(([name, value]) => metric[name] === value),
  )
  return byLabel(matching, 'range')
}
