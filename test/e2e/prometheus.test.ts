import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  CreateBucketCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketTaggingCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3'
import { costRecords } from '../../scripts/rules/cost.js'
import { capacityRecords, quotaRecords } from '../../scripts/rules/forecast.js'
import { growthRecords } from '../../scripts/rules/growth.js'
import { catalogue, familyNames } from '../../src/collectors/catalogue.js'
import { fullName } from '../../src/metrics/families.js'
import { E2E_RULE_PARAMETERS, e2eDashboard, writeE2eRules } from '../support/e2e-rules.js'
import { startExporter } from '../support/exporter.js'
import type { ParsedExposition } from '../support/exposition.js'
import { type FillingStore, QUOTA_BUCKET, QUOTA_BYTES, startFillingStore } from '../support/filling-store.js'
import { LogReceiver } from '../support/log-receiver.js'
import { startLoggingExporter } from '../support/logging-exporter.js'
import { type RunningPrometheus, startPrometheus } from '../support/prometheus.js'
import { dashboardQueries, fillGrafanaVariables, readRules, variableQueries } from '../support/promql.js'
import { promtoolSkipReason, REPO_ROOT } from '../support/promtool.js'
import { type RecordingProxy, startRecordingProxy } from '../support/recording-proxy.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { MiB, rgwS3Client, rgwSourceEnv } from '../support/rgw-scenario.js'
import { startXmlStore, versionedBucket, type XmlStore } from '../support/s3-xml-store.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'
import { waitForValue } from '../support/wait-for.js'

/**
 * Seven exporters scraped by one real Prometheus (every second, each through a proxy that keeps
 * every scrape body) with the shipped alert rules loaded, then asked through Prometheus's HTTP
 * API what a user's Prometheus and Grafana would ask:
 * - `fs`: a real data directory of bucket folders, and drives (two folders and a missing one);
 * - `s3rver`: a real S3 server (s3rver) with buckets and objects;
 * - `xml`: an S3 endpoint answering the versions and multipart listings s3rver lacks with the
 *   XML AWS documents (SCAN_VERSIONS=true), so version and upload panels have data;
 * - `rgw`: a real Ceph RGW read through its admin API, which knows bucket quotas;
 * - `tags`: the same RGW read as an S3 store with S3_BUCKET_SETTINGS and BUCKET_TAG_LABELS, so
 *   bucket_info has settings and bucket_tag_info a tag;
 * - `budget`: s3rver again under MAX_SERIES=1, so its one bucket is left out and the ceiling's
 *   families are written;
 * - `logs`: shipping its log to a real HTTP receiver, so the log-target panels have data.
 * Every family of the catalogue goes through Prometheus. Bucket figures are compared on the
 * first four (`tags` and `budget` see buckets the others already report). `fs` and `xml` have a
 * price table (`xml` rescans every 2 s, so its requests have a rate to price).
 * A second job, `objstore-filling`, is a store filling up (test/support/filling-store.ts): a
 * drive on a tmpfs and an RGW bucket with a quota, both written at a steady pace, scanned every
 * second. The rules are config/alerts.yml as its generator writes it with windows of seconds
 * (test/support/e2e-rules.ts), and the dashboard's forecast row reads those records.
 */

const JOB = 'objstore-exporter'
const FILLING_JOB = 'objstore-filling'
const NAMESPACE = 'objstore'
/**
 * Families of set-ups not built here: change events (EVENTS_AUTH_TOKEN: events-s3rver, events-rgw),
 * per-range subtotals of buckets of a million objects (incremental-scans-s3rver, -rgw) and S3
 * Inventory reports (inventory-s3rver, -rgw).
 */
const ELSEWHERE = ['events_', 'bucket_events_', 'bucket_ranges', 'bucket_inventory_']
// config/alerts.yml watches no bucket for backup freshness until the user opts one in.
const BACKUP_THRESHOLDS = join(REPO_ROOT, 'test/fixtures/backup-thresholds.yml')
const dashboard: unknown = e2eDashboard()
const HOUR = 3600
const GiB = 1024 ** 3
/** The records the forecast row reads, as the e2e rules name them. */
const CLUSTER = capacityRecords('cluster', E2E_RULE_PARAMETERS)
const DRIVE = capacityRecords('drive', E2E_RULE_PARAMETERS)
const QUOTA = quotaRecords(E2E_RULE_PARAMETERS)
const GROWTH = growthRecords(E2E_RULE_PARAMETERS)
const COST = costRecords(E2E_RULE_PARAMETERS)
/** The exporters whose buckets no other exporter reports. */
const FIRST_FOUR = 'source_kind=~"fs|s3rver|xml|rgw"'

/** A price table as an operator sets it (docs/forecast-and-cost.md). */
const PRICES = {
  STORAGE_PRICES: 'STANDARD=0.023,STANDARD_IA=0.0125,GLACIER=0.0036',
  REQUEST_PRICES: 'list=0.005,other=0.0004',
}

interface Target {
  readonly name: string
  readonly job: string
  readonly proxy: RecordingProxy
  close(): Promise<void>
}

describe('a real Prometheus scraping the exporter', { skip: promtoolSkipReason() }, () => {
  let scratch: string
  let missingDrive: string
  let backupTime: number
  let startedSeconds: number
  let s3rver: S3rverProcess
  let xmlStore: XmlStore
  let receiver: LogReceiver
  let rgw: RgwCluster
  let filling: FillingStore | undefined
  let rulesFile: string
  const targets: Target[] = []
  let prometheus: RunningPrometheus
  const target = (name: string) => targets.find((candidate) => candidate.name === name) as Target

  before(async () => {
    startedSeconds = Math.floor(Date.now() / 1000)
    scratch = await mkdtemp(join(tmpdir(), 'objstore-e2e-'))
    const drives = [join(scratch, 'disk1'), join(scratch, 'disk2')]
    for (const drive of drives) await mkdir(drive)
    // A third configured drive that does not exist: offline, so ObjstoreDriveOffline has a case.
    missingDrive = join(scratch, 'disk3')

    // fs: `logs` with three files, years old but not opted in to backup freshness, and
    // `db-backups`, whose newest file is 30 hours old: past the 26 h threshold that
    // test/fixtures/backup-thresholds.yml opts it in with, as a user would.
    const dataDir = join(scratch, 'data')
    backupTime = Math.floor(Date.now() / 1000) - 30 * HOUR
    await writeFiles(
      join(dataDir, 'logs'),
      { 'a.log': 100, 'b.log': 2000, 'sub/c.log': 70000 },
      1_700_000_000,
    )
    await writeFiles(join(dataDir, 'db-backups'), { 'db.dump': 5000 }, backupTime)

    s3rver = await startS3rver()
    await fillBucket(s3rver.client, 'photos', [
      { key: 'a.jpg', size: 1000 },
      { key: 'b.jpg', size: 2000 },
      { key: 'c/d.jpg', size: 3000 },
    ])
    xmlStore = await startXmlStore([versionedBucket({ uploads: true })], 1000)

    // rgw: one bucket with a 64 MiB quota and one 4 KiB object, two tags (one allowlisted) and a
    // lifecycle rule that aborts uploads after 7 days; the usage log on (flushed every second) and
    // a user with an enabled user quota, for the usage log and user families.
    rgw = await startRgwCluster({
      rgwSettings: {
        'rgw enable usage log': 'true',
        'rgw usage log tick interval': '1',
        'rgw usage log flush threshold': '1',
      },
    })
    await rgw.createUser({ uid: 'quota-holder', quota: { maxBytes: 64 * MiB, maxObjects: 1000 } })
    const rgwClient = rgwS3Client(rgw)
    await rgwClient.send(new CreateBucketCommand({ Bucket: 'capped' }))
    await rgwClient.send(new PutObjectCommand({ Bucket: 'capped', Key: 'part-1', Body: Buffer.alloc(4096) }))
    await rgwClient.send(
      new PutBucketTaggingCommand({
        Bucket: 'capped',
        Tagging: {
          TagSet: [
            { Key: 'team', Value: 'storage' },
            { Key: 'not-listed', Value: 'never exported' },
          ],
        },
      }),
    )
    await rgwClient.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'capped',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'abort-stale-uploads',
              Status: 'Enabled',
              Filter: { Prefix: '' },
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
            },
          ],
        },
      }),
    )
    rgwClient.destroy()
    await rgw.setBucketQuota('capped', { maxBytes: 64 * MiB })
    // The rgw exporter scans once: the requests above must be in the usage log by then.
    await waitForValue(
      "the bucket's requests in RGW's usage log",
      async () => {
        const shown = await rgw.radosgwAdmin(['usage', 'show', '--uid=objstore-test'])
        return shown.includes('"bucket": "capped"') ? true : undefined
      },
      { timeoutMs: 60_000, intervalMs: 200, retryErrors: true },
    )

    const exporters: Array<[string, Record<string, string>]> = [
      ['fs', { DATA_DIR: dataDir, DRIVES: [...drives, missingDrive].join(','), EC_PARITY: '1', ...PRICES }],
      ['s3rver', { ...s3rver.exporterEnv }],
      [
        'xml',
        {
          BUCKETS_SOURCE: 's3',
          S3_ENDPOINT: xmlStore.endpoint,
          S3_FORCE_PATH_STYLE: 'true',
          S3_ACCESS_KEY_ID: 'test',
          S3_SECRET_ACCESS_KEY: 'test',
          SCAN_VERSIONS: 'true',
          SCAN_INTERVAL_SECONDS: '2',
          ...PRICES,
        },
      ],
      // The filling store's bucket is its own job's.
      ['rgw', rgwSourceEnv(rgw, 'rgw', { BUCKETS_EXCLUDE: QUOTA_BUCKET })],
      [
        'tags',
        rgwSourceEnv(rgw, 's3', {
          S3_BUCKET_SETTINGS: 'true',
          BUCKET_TAG_LABELS: 'team',
          BUCKETS_EXCLUDE: QUOTA_BUCKET,
        }),
      ],
      // One series is less than the cluster totals alone: the one bucket is left out.
      ['budget', { ...s3rver.exporterEnv, MAX_SERIES: '1' }],
    ]
    for (const [name, env] of exporters) {
      // Every group, the opt-in ones too: every family must go through Prometheus.
      const exporter = await startExporter({ BUCKET_METRICS: 'all', ...env })
      targets.push({
        name,
        job: JOB,
        proxy: await startRecordingProxy(exporter.baseUrl),
        close: () => exporter.close(),
      })
    }
    receiver = await LogReceiver.start()
    const shipping = await startLoggingExporter(receiver)
    targets.push({
      name: 'logs',
      job: JOB,
      proxy: await startRecordingProxy(shipping.baseUrl),
      close: () => shipping.close(),
    })
    filling = await startFillingStore(rgw, join(scratch, 'filling'), {
      STORAGE_PRICES: PRICES.STORAGE_PRICES,
    })
    for (const [name, exporter] of filling.exporters) {
      targets.push({
        name,
        job: FILLING_JOB,
        proxy: await startRecordingProxy(exporter.baseUrl),
        close: () => exporter.close(),
      })
    }
    rulesFile = await writeE2eRules(scratch)
    prometheus = await startPrometheus({
      scrapeConfigs: [JOB, FILLING_JOB].map((job) => ({
        job_name: job,
        static_configs: targets
          .filter((target) => target.job === job)
          .map(({ name, proxy }) => ({ targets: [proxy.target], labels: { source_kind: name } })),
      })),
      ruleFiles: [rulesFile, BACKUP_THRESHOLDS],
    })
    await waitForValue(
      'two scrapes of every target stored by Prometheus',
      async () => {
        const stored = await prometheus.query(`count_over_time(up[5m]) >= 2`)
        return stored.length === targets.length ? true : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
    )
  })

  /** The values of an instant query (now, or at `timeSeconds`), sorted. */
  const values = async (expr: string, timeSeconds?: number) =>
    (await prometheus.query(expr, timeSeconds)).map(({ value }) => value).sort((a, b) => a - b)

  after(async () => {
    await filling?.stopWriting()
    await prometheus?.close()
    for (const { proxy, close } of targets) {
      await proxy.close()
      await close()
    }
    await filling?.release()
    await receiver?.close()
    await rgw?.stop()
    await xmlStore?.close()
    await s3rver?.stop()
    await rm(scratch, { recursive: true, force: true })
  })

  test('every target is up', async () => {
    const up = await prometheus.query('up')
    assert.deepEqual(
      up.map((sample) => [sample.metric.job, sample.metric.source_kind, sample.value]).sort(),
      [
        ...[['budget'], ['fs'], ['logs'], ['rgw'], ['s3rver'], ['tags'], ['xml']].map(([kind]) => [
          JOB,
          kind,
          1,
        ]),
        ...(filling?.driveSkipReason ? [] : [[FILLING_JOB, 'filling', 1]]),
        [FILLING_JOB, 'quota', 1],
      ],
    )
  })

  test('Prometheus stored exactly the figures each exporter served, scrape by scrape', async () => {
    const names = familyNames.flatMap((key) => {
      const name = fullName(NAMESPACE, key)
      const type: string = catalogue[key].type
      // Prometheus negotiates OpenMetrics, where a gauge histogram's sum and count are _gsum/_gcount.
      if (type === 'gaugehistogram') return [`${name}_bucket`, `${name}_gsum`, `${name}_gcount`]
      return type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name]
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
    // Every family of the catalogue went through: some source here emits each, except those of a
    // set-up this suite does not build, each proved against a real store by its own suite.
    const expected = familyNames
      .filter((key) => !ELSEWHERE.some((prefix) => key.startsWith(prefix)))
      .map(
        (key) =>
          fullName(NAMESPACE, key) +
          ({ histogram: '_count', gaugehistogram: '_gcount' }[catalogue[key].type as string] ?? ''),
      )
    assert.deepEqual(
      expected.filter((name) => !compared.has(name)),
      [],
    )
  })

  test('drive and cluster capacity: the figures statfs gives, two of three drives online, parity 1', async () => {
    const fs = target('fs').proxy.scrapes.at(-1) as ParsedExposition
    assert.equal(valueIn(fs, `${NAMESPACE}_cluster_drives_online`, {}), 2)
    assert.equal(valueIn(fs, `${NAMESPACE}_cluster_drives_offline`, {}), 1)
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

  test('bucket figures in Prometheus are those of the data directory, s3rver, the XML store and RGW', async () => {
    const figures = async (family: string) =>
      Object.fromEntries(
        (await prometheus.query(`${NAMESPACE}_${family}{job="${JOB}", ${FIRST_FOUR}}`)).map((sample) => [
          sample.metric.bucket,
          sample.value,
        ]),
      )
    assert.deepEqual(await figures('bucket_usage_total_bytes'), {
      logs: 72100,
      'db-backups': 5000,
      photos: 6000,
      versioned: 100,
      capped: 4096,
    })
    assert.deepEqual(await figures('bucket_usage_objects'), {
      logs: 3,
      'db-backups': 1,
      photos: 3,
      versioned: 1,
      capped: 1,
    })
    const { photos: photosNewest, ...newest } = await figures('bucket_newest_object_timestamp_seconds')
    assert.deepEqual(newest, {
      logs: 1_700_000_000,
      'db-backups': backupTime,
      versioned: Date.parse('2026-03-02T00:00:00Z') / 1000,
    })
    // s3rver stamps objects when they are written, during this test's set-up.
    assert.ok(Math.abs((photosNewest ?? 0) - startedSeconds) < 600, `photos newest ${photosNewest}`)
    assert.deepEqual(await figures('bucket_usage_versions'), { versioned: 4 })
    assert.deepEqual(await figures('bucket_usage_deletemarkers'), { versioned: 1 })
    assert.deepEqual(await figures('bucket_noncurrent_bytes'), { versioned: 80 })
    assert.deepEqual(await figures('bucket_multipart_uploads_incomplete'), { versioned: 2, capped: 0 })
    assert.deepEqual(await figures('bucket_quota_total_bytes'), { capped: 64 * MiB })
    assert.deepEqual(await figures('bucket_multipart_oldest_initiated_timestamp_seconds'), {
      versioned: Date.parse('2026-02-01T00:00:00Z') / 1000,
    })
    // Sized through ListParts; started in February 2026, so more than MULTIPART_STALE_DAYS ago.
    const uploadBytes = 10 * MiB + 100 + 42
    assert.deepEqual(await figures('bucket_multipart_uploads_incomplete_bytes'), { versioned: uploadBytes })
    assert.deepEqual(await figures('bucket_multipart_uploads_unsized'), { versioned: 0 })
    assert.deepEqual(await figures('bucket_multipart_uploads_stale'), { versioned: 2 })
    assert.deepEqual(await figures('bucket_multipart_uploads_stale_bytes'), { versioned: uploadBytes })
    assert.deepEqual(await figures('bucket_expired_deletemarkers'), { versioned: 0 })
    // Bands move with the clock; their sums do not.
    const sums = async (family: string) =>
      Object.fromEntries(
        (await prometheus.query(`sum by (bucket) (${NAMESPACE}_${family}{job="${JOB}", ${FIRST_FOUR}})`)).map(
          (sample) => [sample.metric.bucket, sample.value],
        ),
      )
    assert.deepEqual(await sums('bucket_age_bytes'), {
      logs: 72100,
      'db-backups': 5000,
      photos: 6000,
      versioned: 100,
    })
    assert.deepEqual(await sums('bucket_noncurrent_age_bytes'), { versioned: 80 })
    const [median] = await prometheus.query(
      `histogram_quantile(0.5, sum by (le) (${NAMESPACE}_bucket_object_size_bytes_bucket{bucket="photos"}))`,
    )
    assert.ok(median && median.value > 1000 && median.value <= 4096, `median ${median?.value}`)
  })

  test('settings and tags of an s3 source on RGW, through Prometheus: bucket_info and bucket_tag_info', async () => {
    const rows = async (family: string) =>
      (await prometheus.query(`${NAMESPACE}_${family}{source_kind="tags"}`)).map(({ metric, value }) => {
        const { __name__: _name, job: _job, instance: _instance, source_kind: _kind, ...labels } = metric
        return { ...labels, sample: value }
      })
    // Prometheus keeps no empty label: owner and tenant are the rgw source's, not the s3 one's.
    assert.deepEqual(await rows('bucket_info'), [
      { bucket: 'capped', versioning: 'Off', object_lock: 'Off', lifecycle: 'Enabled', sample: 1 },
    ])
    assert.deepEqual(await rows('bucket_tag_info'), [
      { bucket: 'capped', tag: 'team', value: 'storage', sample: 1 },
    ])
  })

  test('MAX_SERIES: the ceiling, the series and the bucket it left out, through Prometheus', async () => {
    const value = async (family: string) =>
      (await prometheus.query(`${NAMESPACE}_${family}{source_kind="budget"}`)).map((sample) => sample.value)
    assert.deepEqual(await value('exporter_series_limit'), [1])
    assert.deepEqual(await value('exporter_buckets_dropped'), [1])
    const [dropped] = await value('exporter_series_dropped')
    assert.ok((dropped ?? 0) > 1, `series dropped ${dropped}`)
    const [hits] = await value('exporter_series_limit_hits_total')
    assert.ok((hits ?? 0) >= 1, `hits ${hits}`)
    assert.deepEqual(await prometheus.query(`{source_kind="budget", bucket!=""}`), [], 'no series of photos')
    // The cluster totals are never cut: s3rver's photos, 3 objects.
    assert.deepEqual(await value('cluster_usage_objects'), [3])
  })

  test('every alert and recording rule of config/alerts.yml evaluates without error on real series', async () => {
    const shipped = [...readRules(rulesFile), ...readRules(BACKUP_THRESHOLDS)]
    const rules = await waitForValue(
      'every rule evaluated',
      async () => {
        const data = await prometheus.api<{
          groups: Array<{
            rules: Array<{ name: string; health: string; lastError?: string; lastEvaluation: string }>
          }>
        }>('rules')
        const all = data.groups.flatMap((group) => group.rules)
        return all.length === shipped.length && all.every((rule) => !rule.lastEvaluation.startsWith('0001-'))
          ? all
          : undefined
      },
      { timeoutMs: 20_000, intervalMs: 200, retryErrors: true },
    )
    assert.deepEqual(
      rules
        .filter((rule) => rule.health !== 'ok')
        .map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`),
      [],
    )
  })

  test('the reclaimable-bytes recording rules: stale upload parts plus noncurrent versions, per bucket', async () => {
    // The XML store's versioned bucket: 2 stale uploads of 10 MiB + 142 B, 80 B noncurrent, 100 B
    // current. RGW's capped, read as an S3 store (`tags`): its uploads listed, none. The other
    // sources list neither uploads' parts nor versions, so they have no such series.
    const reclaimable = 10 * MiB + 142 + 80
    const rows = async (name: string) => {
      const found = await waitForValue(
        `${name} recorded for both buckets`,
        async () => {
          const samples = await prometheus.query(name)
          return samples.length >= 2 ? samples : undefined
        },
        { timeoutMs: 20_000, intervalMs: 200, retryErrors: true },
      )
      return found
        .map(({ metric, value }) => {
          const { __name__, job, instance, bucket, ...more } = metric
          const source = targets.find(({ proxy }) => proxy.target === instance)?.name
          return { __name__, job, source, bucket, more, value }
        })
        .sort((a, b) => String(a.bucket).localeCompare(String(b.bucket)))
    }
    const sum = `bucket:${NAMESPACE}_reclaimable_bytes:sum`
    assert.deepEqual(await rows(sum), [
      { __name__: sum, job: JOB, source: 'tags', bucket: 'capped', more: {}, value: 0 },
      { __name__: sum, job: JOB, source: 'xml', bucket: 'versioned', more: {}, value: reclaimable },
    ])
    const ratio = `bucket:${NAMESPACE}_reclaimable_bytes_per_stored_bytes:ratio`
    assert.deepEqual(await rows(ratio), [
      { __name__: ratio, job: JOB, source: 'tags', bucket: 'capped', more: {}, value: 0 },
      {
        __name__: ratio,
        job: JOB,
        source: 'xml',
        bucket: 'versioned',
        more: {},
        value: reclaimable / (reclaimable + 100),
      },
    ])
  })

  test("the reclaimable table's join: owner and lifecycle where bucket_info has them, the bare row where not", async () => {
    const query = dashboardQueries(dashboard).find(
      ({ panel, refId }) => panel === 'Reclaimable bytes by bucket' && refId === 'A',
    )
    assert.ok(query, 'the dashboard has the reclaimable table')
    const rows = await waitForValue(
      'both buckets in the table',
      async () => {
        const found = await prometheus.query(fillGrafanaVariables(query.expr))
        return found.length >= 2 ? found : undefined
      },
      { timeoutMs: 15_000, intervalMs: 200, retryErrors: true },
    )
    assert.deepEqual(
      [...rows]
        .sort((a, b) => String(a.metric.bucket).localeCompare(String(b.metric.bucket)))
        .map(({ metric: { job: _job, instance, ...labels }, value }) => ({
          source: targets.find(({ proxy }) => proxy.target === instance)?.name,
          ...labels,
          value,
        })),
      [
        // RGW read as S3 with S3_BUCKET_SETTINGS: its lifecycle rule; owner is the rgw source's.
        { source: 'tags', bucket: 'capped', versioning: 'Off', lifecycle: 'Enabled', value: 0 },
        // The XML store's exporter reads no settings: no bucket_info, the row stands alone.
        { source: 'xml', bucket: 'versioned', value: 10 * MiB + 142 + 80 },
      ],
    )
  })

  test('time until full of the bucket filling its quota, and the quota it is measured against', async (t) => {
    const filled = await waitForValue(
      'time until full of the quota bucket',
      async () => {
        const found = await prometheus.query(`${QUOTA.untilFull}{job="${FILLING_JOB}"}`)
        return found.length > 0 ? found : undefined
      },
      { timeoutMs: 60_000, intervalMs: 200, retryErrors: true },
    )
    assert.deepEqual(
      filled.map(({ metric }) => metric),
      [{ __name__: QUOTA.untilFull, job: FILLING_JOB, bucket: QUOTA_BUCKET }],
    )
    assert.ok(
      filled.every(({ value }) => value > 0 && Number.isFinite(value)),
      JSON.stringify(filled),
    )
    assert.deepEqual(await values(`${QUOTA.quota}{job="${FILLING_JOB}"}`), [QUOTA_BYTES])
    t.diagnostic(`quota bucket: ${filled[0]?.value} s until full`)
    // Every write of the filling store went through (a failed one ends its writer).
    const { writers } = filling as FillingStore
    assert.deepEqual(
      writers.map((writer) => writer.failure),
      writers.map(() => undefined),
    )
  })

  test('time until full of the filling drive, and of its cluster alike (one drive, no parity)', async (t) => {
    const store = filling as FillingStore
    if (store.driveSkipReason) return t.skip(store.driveSkipReason)
    // The one drive is the whole cluster: the same free bytes, the same trend.
    const [clusterUntilFull] = await waitForValue(
      'time until full of the filling drive',
      async () => {
        const found = await values(`${CLUSTER.untilFull}{job="${FILLING_JOB}"}`)
        return found.length > 0 ? found : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
    )
    assert.ok((clusterUntilFull ?? 0) > 0, `cluster: ${clusterUntilFull} s until full`)
    // Asked a few evaluations back: now, the group may have written one of the two rules only.
    const difference = await waitForValue(
      'both recorded 5 s ago',
      async () => {
        const found = await values(
          `${CLUSTER.untilFull}{job="${FILLING_JOB}"} - on (job) ${DRIVE.untilFull}{job="${FILLING_JOB}"}`,
          Date.now() / 1000 - 5,
        )
        return found.length > 0 ? found : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
    )
    assert.deepEqual(difference, [0])
    // The tmpfs's size; free bytes falling.
    assert.deepEqual(await values(`${CLUSTER.size}{job="${FILLING_JOB}"}`), [32 * MiB])
    assert.deepEqual(await values(`${DRIVE.size}{job="${FILLING_JOB}"}`), [32 * MiB])
    const [rate] = await values(`${DRIVE.rate}{job="${FILLING_JOB}"}`)
    assert.ok((rate ?? 0) < 0, `free bytes change by ${rate} B/s`)
    t.diagnostic(`cluster and drive: ${clusterUntilFull} s until full, free bytes ${rate} B/s`)
  })

  test("growth against each bucket's own baseline: the written buckets above 0, every other one at 0", async (t) => {
    const growing = new Set(['incoming', QUOTA_BUCKET].slice(filling?.driveSkipReason ? 1 : 0))
    const expected = ['capped', 'db-backups', 'logs', 'photos', 'versioned', ...growing].sort()
    // Every bucket's ratio needs its own window of samples: on a loaded machine the buckets scanned
    // less often arrive later than the written ones, so wait for all of them.
    const ratios = await waitForValue(
      'a baseline for every bucket',
      async () => {
        const found = await prometheus.query(GROWTH.ratio)
        return expected.every((bucket) => found.some(({ metric }) => metric.bucket === bucket))
          ? found
          : undefined
      },
      { timeoutMs: 60_000, intervalMs: 200, retryErrors: true },
    )
    const byBucket: Record<string, number> = Object.fromEntries(
      ratios.map(({ metric, value }) => [metric.bucket, value]),
    )
    t.diagnostic(`growth per baseline: ${JSON.stringify(byBucket)}`)
    for (const [bucket, ratio] of Object.entries(byBucket)) {
      if (growing.has(bucket ?? '')) assert.ok(ratio > 0, `${bucket} grows: ${ratio}`)
      else assert.equal(ratio, 0, `${bucket} is not written to`)
    }
    assert.deepEqual(Object.keys(byBucket).sort(), expected)
    const recent: Record<string, number> = Object.fromEntries(
      (await prometheus.query(GROWTH.recent)).map(({ metric, value }) => [metric.bucket, value]),
    )
    t.diagnostic(
      `growth in the last ${E2E_RULE_PARAMETERS.growth.recentSeconds} s: ${JSON.stringify(recent)}`,
    )
    for (const bucket of growing) assert.ok((recent[bucket] ?? 0) > 0, `${bucket}: ${recent[bucket]}`)
  })

  test('cost: billed bytes by class and part times the price table, hidden bytes included; reclaimable and scan cost', async (t) => {
    const standard = 0.023
    const rows = async (name: string): Promise<Array<Record<string, string | number>>> =>
      (await prometheus.query(`${name}{job="${JOB}"}`))
        .map(({ metric: { __name__: _name, job: _job, ...labels }, value }) => ({ ...labels, value }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    const billed = [
      { bucket: 'capped', storage_class: 'STANDARD', part: 'current', bytes: 4096 },
      // Read as an S3 store (`tags`), its uploads listed: none.
      { bucket: 'capped', storage_class: 'STANDARD', part: 'incomplete_uploads', bytes: 0 },
      { bucket: 'db-backups', storage_class: 'STANDARD', part: 'current', bytes: 5000 },
      { bucket: 'logs', storage_class: 'STANDARD', part: 'current', bytes: 72100 },
      { bucket: 'photos', storage_class: 'STANDARD', part: 'current', bytes: 6000 },
      { bucket: 'versioned', storage_class: 'STANDARD', part: 'current', bytes: 100 },
      { bucket: 'versioned', storage_class: 'STANDARD', part: 'incomplete_uploads', bytes: 10 * MiB + 142 },
      { bucket: 'versioned', storage_class: 'STANDARD', part: 'noncurrent', bytes: 80 },
    ]
    const sorted = <T>(list: T[]) => list.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    assert.deepEqual(
      await rows(COST.billed),
      sorted(billed.map(({ bytes, ...labels }) => ({ ...labels, value: bytes }))),
    )
    assert.deepEqual(
      await rows(COST.storage),
      sorted(billed.map(({ bytes, ...labels }) => ({ ...labels, value: (bytes / GiB) * standard }))),
    )
    assert.deepEqual(await rows(COST.reclaimable), [
      { bucket: 'capped', value: 0 },
      { bucket: 'versioned', value: ((10 * MiB + 142 + 80) / GiB) * standard },
    ])
    // The filling store's buckets are priced by its own job's table.
    const filled = await values(`${COST.storage}{job="${FILLING_JOB}"}`)
    assert.ok(filled.length > 0 && filled.every((value) => value > 0), `filling store: ${filled}`)
    // The xml exporter rescans every 2 s: its listings have a rate, priced as list requests.
    const scans = await waitForValue(
      'a rate of scan requests',
      async () => {
        const found = await rows(COST.scans)
        return found.some(({ value }) => Number(value) > 0) ? found : undefined
      },
      { timeoutMs: 30_000, intervalMs: 200, retryErrors: true },
    )
    t.diagnostic(`scans' cost per month: ${JSON.stringify(scans)}`)
    for (const { operation, request_class } of scans)
      assert.equal(request_class, String(operation).startsWith('List') ? 'list' : 'other', String(operation))
  })

  test('real alerts: the offline drive is pending, the stale backup bucket fires, the exporter is quiet', async () => {
    const alerts = await waitForValue(
      'ObjstoreDriveOffline pending and ObjstoreBucketBackupStale firing',
      async () => {
        const data = await prometheus.api<{
          alerts: Array<{
            labels: Record<string, string>
            annotations: Record<string, string>
            state: string
          }>
        }>('alerts')
        const names = new Set(data.alerts.map((alert) => alert.labels.alertname))
        return names.has('ObjstoreDriveOffline') && names.has('ObjstoreBucketBackupStale')
          ? data.alerts
          : undefined
      },
      { timeoutMs: 20_000, intervalMs: 200, retryErrors: true },
    )
    const named = (name: string) => alerts.filter((alert) => alert.labels.alertname === name)
    assert.deepEqual(
      named('ObjstoreDriveOffline').map((alert) => [alert.labels.drive, alert.labels.severity, alert.state]),
      [[missingDrive, 'critical', 'pending']],
    )
    const [stale, ...others] = named('ObjstoreBucketBackupStale')
    assert.equal(others.length, 0, 'only the bucket with a threshold is watched')
    assert.deepEqual(
      [stale?.labels.bucket, stale?.labels.source_kind, stale?.state],
      ['db-backups', 'fs', 'firing'],
    )
    assert.match(stale?.annotations.summary ?? '', /^No new object in bucket db-backups for 1d 6h \d+m \d+s$/)
    // Space alerts depend on this machine's disk; the exporter's own health must be clean.
    const exporterGroup = new Set(
      readRules(rulesFile)
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
      // Only the filling store's drive (a tmpfs) fills at a known pace.
      const needsDrive = [CLUSTER.untilFull, DRIVE.untilFull].some((name) => expr.includes(name))
      test(`${query.panel} / ${query.refId}`, async (t) => {
        if (needsDrive && filling?.driveSkipReason) return t.skip(filling.driveSkipReason)
        // A scrape that times out (1 s, on a loaded machine) marks its target's series stale until
        // the next one: ask again for a while before calling a panel empty.
        const result = await waitForValue(
          `data for ${expr}`,
          async () => {
            const found = await prometheus.query(expr)
            return found.length > 0 ? found : undefined
          },
          { timeoutMs: 15_000, intervalMs: 200, retryErrors: true },
        )
        t.diagnostic(result.map(({ metric, value }) => `${JSON.stringify(metric)} ${value}`).join('; '))
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

/** The value of the one series `name{labels}` (exactly these labels) in a scrape, if served. */
function valuesIn(
  scrape: ParsedExposition,
  name: string,
  labels: Readonly<Record<string, string>>,
): number[] {
  // Prometheus stores a label with an empty value as no label at all (bucket_info's unknown settings).
  const found = scrape.samples.filter((sample) => {
    if (sample.name !== name) return false
    const served = Object.entries(sample.labels).filter(([, value]) => value !== '')
    return (
      served.length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
    )
  })
  assert.ok(found.length <= 1, `${name}${JSON.stringify(labels)} served ${found.length} times in one scrape`)
  return found.map((sample) => sample.value)
}

function valueIn(scrape: ParsedExposition, name: string, labels: Readonly<Record<string, string>>): number {
  const [value, ...more] = valuesIn(scrape, name, labels)
  assert.ok(value !== undefined && more.length === 0, `${name}${JSON.stringify(labels)} not served`)
  return value
}

/** Writes files of the given sizes below `folder`, all last modified at `mtimeSeconds`. */
async function writeFiles(
  folder: string,
  files: Record<string, number>,
  mtimeSeconds: number,
): Promise<void> {
  for (const [relativePath, size] of Object.entries(files)) {
    const path = join(folder, relativePath)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, Buffer.alloc(size))
    await utimes(path, mtimeSeconds, mtimeSeconds)
  }
}
