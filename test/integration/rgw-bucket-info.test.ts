import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  CreateBucketCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition, sampleValue } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client, rgwSourceEnv } from '../support/rgw-scenario.js'

/**
 * Ownership and settings (issue 14) against a real Ceph RGW: buckets owned by another user and by
 * a user of a tenant, versioning enabled and suspended, object lock, lifecycle rules enabled and
 * disabled, tags. BUCKETS_SOURCE=rgw reads owner and tenant from the admin API's bucket stats;
 * BUCKETS_SOURCE=s3 with S3_BUCKET_SETTINGS and BUCKET_TAG_LABELS reads the settings and tags.
 */
describe('bucket_info and bucket_tag_info against Ceph RGW', { timeout: 10 * 60_000 }, () => {
  let cluster: RgwCluster
  let s3: S3Client
  const otherClients: S3Client[] = []
  let rgwExporter: RunningExporter
  let s3Exporter: RunningExporter
  let rgwScrape: ParsedExposition
  let s3Scrape: ParsedExposition
  let s3Text: string
  let rgwText: string
  /** What `radosgw-admin bucket limit check` says, with the same rgw_safe_max_objects_per_shard. */
  let limitCheck: {
    buckets: { bucket: string; num_shards: number; objects_per_shard: number; fill_status: string }[]
  }[]
  /** Buckets resharded to a known count, with a known number of objects. */
  const SHARDED = [
    ['shards-7', 7, 22],
    ['shards-2', 2, 8],
  ] as const
  const MAX_PER_SHARD = 3

  /** A second RGW user (in `tenant` when given), and an S3 client signing as it. */
  async function userClient(uid: string, tenant?: string): Promise<S3Client> {
    const user = await cluster.createUser({ uid, ...(tenant ? { tenant } : {}) })
    const client = rgwS3Client({ ...cluster, ...user })
    otherClients.push(client)
    return client
  }

  const rule = (id: string, status: 'Enabled' | 'Disabled') => ({
    ID: id,
    Status: status,
    Filter: { Prefix: 'logs/' },
    Expiration: { Days: 30 },
  })

  /** A setup request, named in the error when RGW refuses it. */
  async function step<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } }
      throw new Error(`${what}: ${name} (HTTP ${$metadata?.httpStatusCode})`, { cause: error })
    }
  }

  before(async () => {
    cluster = await startRgwCluster()
    s3 = rgwS3Client(cluster)
    const create = (Bucket: string, ObjectLockEnabledForBucket?: boolean) =>
      step(`CreateBucket ${Bucket}`, () =>
        s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket })),
      )
    const versioning = (Bucket: string, Status: 'Enabled' | 'Suspended') =>
      step(`PutBucketVersioning ${Bucket}`, () =>
        s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status } })),
      )
    const lifecycle = (Bucket: string, Rules: ReturnType<typeof rule>[]) =>
      step(`PutBucketLifecycleConfiguration ${Bucket}`, () =>
        s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } })),
      )
    const tag = (Bucket: string, tags: Record<string, string>) =>
      step(`PutBucketTagging ${Bucket}`, () =>
        s3.send(
          new PutBucketTaggingCommand({
            Bucket,
            Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
          }),
        ),
      )
    await create('settings-all')
    await versioning('settings-all', 'Enabled')
    await lifecycle('settings-all', [rule('off', 'Disabled'), rule('expire-logs', 'Enabled')])
    await tag('settings-all', {
      team: 'storage "core"',
      'cost-center': 'cc-42',
      'not-listed': 'never exported',
    })
    await create('settings-suspended')
    await versioning('settings-suspended', 'Enabled')
    await versioning('settings-suspended', 'Suspended')
    await lifecycle('settings-suspended', [rule('paused', 'Disabled')])
    await tag('settings-suspended', { team: 'x'.repeat(256) })
    await create('settings-locked', true)
    await create('settings-none')
    const alice = await userClient('alice')
    await step('CreateBucket alice-bucket', () =>
      alice.send(new CreateBucketCommand({ Bucket: 'alice-bucket' })),
    )
    const bob = await userClient('bob', 'acme')
    await step('CreateBucket tenant-bucket', () =>
      bob.send(new CreateBucketCommand({ Bucket: 'tenant-bucket' })),
    )

    for (const [bucket, shards, objects] of SHARDED) {
      await create(bucket)
      await cluster.radosgwAdmin([
        'bucket',
        'reshard',
        `--bucket=${bucket}`,
        `--num-shards=${shards}`,
        '--yes-i-really-mean-it',
      ])
      for (let key = 0; key < objects; key++) {
        await step(`PutObject ${bucket}`, () =>
          s3.send(new PutObjectCommand({ Bucket: bucket, Key: `k${key}`, Body: Buffer.from('x') })),
        )
      }
    }
    limitCheck = JSON.parse(
      await cluster.radosgwAdmin([
        'bucket',
        'limit',
        'check',
        `--rgw-safe-max-objects-per-shard=${MAX_PER_SHARD}`,
      ]),
    )

    rgwExporter = await startExporter(
      rgwSourceEnv(cluster, 'rgw', {
        RGW_SAFE_MAX_OBJECTS_PER_SHARD: String(MAX_PER_SHARD),
        BUCKET_METRICS: 'all',
      }),
    )
    s3Exporter = await startExporter(
      rgwSourceEnv(cluster, 's3', {
        S3_BUCKET_SETTINGS: 'true',
        BUCKET_TAG_LABELS: 'team, cost-center',
        BUCKET_METRICS: 'all',
      }),
    )
    await Promise.all([rgwExporter.exporter.scanner.scanNow(), s3Exporter.exporter.scanner.scanNow()])
    rgwScrape = await rgwExporter.scrape()
    s3Scrape = await s3Exporter.scrape()
    const response = await fetch(`${s3Exporter.baseUrl}${s3Exporter.config.METRICS_PATH}`)
    s3Text = await response.text()
    rgwText = await (await fetch(`${rgwExporter.baseUrl}${rgwExporter.config.METRICS_PATH}`)).text()
  })
  after(async () => {
    await rgwExporter?.close()
    await s3Exporter?.close()
    s3?.destroy()
    for (const client of otherClients) client.destroy()
    await cluster?.stop()
  })

  const rows = (scrape: ParsedExposition, name: string) =>
    findSamples(scrape, `objstore_${name}`, {})
      .map((sample) => ({ ...sample.labels, value: sample.value }) as Record<string, string | number>)
      .sort((a, b) => String(a.bucket).localeCompare(String(b.bucket)))

  it('rgw: one bucket_info per bucket, owner and tenant from the admin API, other labels empty', () => {
    const info = (bucket: string, owner: string, tenant = '') => ({
      bucket,
      owner,
      tenant,
      versioning: '',
      object_lock: '',
      lifecycle: '',
      value: 1,
    })
    assert.deepEqual(rows(rgwScrape, 'bucket_info'), [
      info('acme:tenant-bucket', 'acme$bob', 'acme'),
      info('alice-bucket', 'alice'),
      info('settings-all', 'objstore-test'),
      info('settings-locked', 'objstore-test'),
      info('settings-none', 'objstore-test'),
      info('settings-suspended', 'objstore-test'),
      info('shards-2', 'objstore-test'),
      info('shards-7', 'objstore-test'),
    ])
    assert.deepEqual(rows(rgwScrape, 'bucket_tag_info'), [])
  })

  it('s3: versioning, object lock and lifecycle of each bucket the key lists', () => {
    const info = (bucket: string, versioning: string, object_lock: string, lifecycle: string) => ({
      bucket,
      owner: '',
      tenant: '',
      versioning,
      object_lock,
      lifecycle,
      value: 1,
    })
    assert.deepEqual(rows(s3Scrape, 'bucket_info'), [
      info('settings-all', 'Enabled', 'Off', 'Enabled'),
      // Object lock needs versioning: RGW enables it with the lock.
      info('settings-locked', 'Enabled', 'Enabled', 'Off'),
      info('settings-none', 'Off', 'Off', 'Off'),
      info('settings-suspended', 'Suspended', 'Off', 'Disabled'),
      info('shards-2', 'Off', 'Off', 'Off'),
      info('shards-7', 'Off', 'Off', 'Off'),
    ])
  })

  it('s3: allowlisted tags only, under their label names, values whole up to the S3 bound', () => {
    const tags = findSamples(s3Scrape, 'objstore_bucket_tag_info', {})
      .map(({ labels, value }) => `${labels.bucket} ${labels.tag}=${labels.value} ${value}`)
      .sort()
    assert.deepEqual(tags, [
      'settings-all cost_center=cc-42 1',
      'settings-all team=storage "core" 1',
      // S3's longest tag value (RGW refuses 257 with InvalidTag): whole in the label.
      `settings-suspended team=${'x'.repeat(256)} 1`,
    ])
  })

  it('rgw: index shards and fill as radosgw-admin bucket limit check computes them', () => {
    const ours = (bucket: string) => ({
      shards: sampleValue(rgwScrape, 'objstore_bucket_index_shards', { bucket }),
      perShard: sampleValue(rgwScrape, 'objstore_bucket_index_objects_per_shard', { bucket }),
      ratio: sampleValue(rgwScrape, 'objstore_bucket_index_fill_ratio', { bucket }),
      status: findSamples(rgwScrape, 'objstore_bucket_index_fill_status', { bucket }).map(
        (sample) => `${sample.labels.status} ${sample.value}`,
      ),
    })
    // 22 entries over 7 shards: 3 a shard, 100 % of 3: WARN; 8 over 2: 4, 133 %: OVER.
    assert.deepEqual(ours('shards-7'), { shards: 7, perShard: 3, ratio: 1, status: ['WARN 1'] })
    // The exposition prints at most 15 significant digits: 4/3 is served 1.33333333333333.
    assert.deepEqual(ours('shards-2'), {
      shards: 2,
      perShard: 4,
      ratio: 1.33333333333333,
      status: ['OVER 1'],
    })
    // Ceph 16's default for a new bucket: 11 shards.
    assert.deepEqual(ours('settings-none'), { shards: 11, perShard: 0, ratio: 0, status: ['OK 1'] })
    const checked = limitCheck.flatMap((user) => user.buckets)
    assert.equal(checked.length, 8)
    for (const theirs of checked) {
      const name = theirs.bucket === 'tenant-bucket' ? 'acme:tenant-bucket' : theirs.bucket
      const mine = ours(name)
      assert.equal(mine.shards, theirs.num_shards, name)
      assert.equal(mine.perShard, theirs.objects_per_shard, name)
      assert.deepEqual(mine.status, [`${theirs.fill_status.split(' ')[0]} 1`], name)
    }
  })

  it('rgw: no usage log counters while RGW runs without rgw_enable_usage_log (read with usage=read, empty)', () => {
    for (const family of [
      'bucket_usage_log_ops_total',
      'bucket_usage_log_successful_ops_total',
      'bucket_usage_log_sent_bytes_total',
      'bucket_usage_log_received_bytes_total',
    ])
      assert.equal(findSamples(rgwScrape, `objstore_${family}`).length, 0, family)
    // Read (the key has usage=read), so no warning: the log was merely empty.
    assert.equal(
      rgwExporter.logs.lines.some((line) => String(line.msg).startsWith('RGW usage log not read')),
      false,
    )
    // The users are there: alice, bob of acme, the tests' admin user, each with its figures.
    assert.equal(findSamples(rgwScrape, 'objstore_user_usage_total_bytes').length, 3)
    assert.equal(sampleValue(rgwScrape, 'objstore_user_usage_objects', { uid: 'bob', tenant: 'acme' }), 0)
  })

  it('promtool check metrics is clean on both scrapes (settings, tags, index fill)', (t) => {
    const skip = promtoolSkipReason()
    if (skip) return t.skip(skip)
    assert.equal(promtoolCheckMetrics(s3Text), '')
    assert.equal(promtoolCheckMetrics(rgwText), '')
  })
})
