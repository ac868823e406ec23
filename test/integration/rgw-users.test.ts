import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { RgwAdminClient } from '../../src/sources/rgw/admin.js'
import { readUsers } from '../../src/sources/rgw/users.js'
import { type RunningExporter, startExporter } from '../support/exporter.js'
import { findSamples, type ParsedExposition, sampleValue } from '../support/exposition.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { startRecordingProxy } from '../support/recording-proxy.js'
import { type RgwCluster, type RgwUser, startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client, rgwSourceEnv } from '../support/rgw-scenario.js'
import { waitFor } from '../support/wait-for.js'

/**
 * Issue 14's RGW per-user figures and usage log against a real Ceph RGW: a user with an enabled
 * user quota and known objects, a user of a tenant without a quota, the usage log on (flushed
 * every second and every entry, so what was done is in it within seconds) with known requests.
 */
describe('RGW users and usage log against Ceph RGW', { timeout: 10 * 60_000 }, () => {
  let cluster: RgwCluster
  let alice: RgwUser
  let bob: RgwUser
  let aliceS3: S3Client
  let bobS3: S3Client
  const exporters: RunningExporter[] = []
  let scratch: string
  /** Every user of the cluster (the tests' admin user too). */
  const users = () => 3
  const QUOTA_BYTES = 1_000_000
  /** RGW keeps a user quota's size in whole KiB, rounded up. */
  const QUOTA_BYTES_AS_RGW_KEEPS_IT = Math.ceil(QUOTA_BYTES / 1024) * 1024

  const start = async (
    extra: Record<string, string>,
    access: { accessKeyId: string; secretAccessKey: string } = cluster,
  ) => {
    const running = await startExporter(rgwSourceEnv({ ...cluster, ...access }, 'rgw', extra))
    exporters.push(running)
    return running
  }
  const scanAndScrape = async (running: RunningExporter): Promise<ParsedExposition> => {
    await running.exporter.scanner.scanNow()
    return running.scrape()
  }
  const put = (client: S3Client, Bucket: string, Key: string, bytes: number) =>
    client.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(bytes, 1) }))
  /** The usage log's ops for `owner` and `bucket`, as radosgw-admin reads it. */
  const loggedOps = async (owner: RgwUser, bucket: string): Promise<number> => {
    const shown = JSON.parse(await cluster.radosgwAdmin(['usage', 'show', `--uid=${owner.id}`])) as {
      entries?: { buckets?: { bucket: string; categories?: { ops: number }[] }[] }[]
    }
    let ops = 0
    for (const entry of shown.entries ?? [])
      for (const b of entry.buckets ?? [])
        if (b.bucket === bucket) for (const c of b.categories ?? []) ops += c.ops
    return ops
  }
  const syncStats = async (user: RgwUser) => {
    // RGW refreshes a user's stats from its buckets on its own schedule; this forces it.
    await cluster.radosgwAdmin(['user', 'stats', `--uid=${user.id}`, '--sync-stats'])
  }

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'objstore-rgw-users-'))
    cluster = await startRgwCluster({
      rgwSettings: {
        'rgw enable usage log': 'true',
        'rgw usage log tick interval': '1',
        'rgw usage log flush threshold': '1',
      },
    })
    alice = await cluster.createUser({ uid: 'alice', quota: { maxBytes: QUOTA_BYTES, maxObjects: 50 } })
    bob = await cluster.createUser({ uid: 'bob', tenant: 'acme' })
    aliceS3 = rgwS3Client({ ...cluster, ...alice })
    bobS3 = rgwS3Client({ ...cluster, ...bob })
    await aliceS3.send(new CreateBucketCommand({ Bucket: 'alice-b' }))
    await put(aliceS3, 'alice-b', 'k1', 1000)
    await put(aliceS3, 'alice-b', 'k2', 300)
    await (
      await aliceS3.send(new GetObjectCommand({ Bucket: 'alice-b', Key: 'k1' }))
    ).Body?.transformToByteArray()
    await bobS3.send(new CreateBucketCommand({ Bucket: 'bob-b' }))
    await put(bobS3, 'bob-b', 'only', 777)
    await syncStats(alice)
    await syncStats(bob)
    // create_bucket, 2 put_obj, get_obj; create_bucket, put_obj: flushed within a few ticks.
    await waitFor(
      'the usage log to hold the requests',
      async () => (await loggedOps(alice, 'alice-b')) === 4 && (await loggedOps(bob, 'bob-b')) === 2,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    )
  })
  after(async () => {
    for (const running of exporters) await running.close()
    aliceS3?.destroy()
    bobS3?.destroy()
    await cluster?.stop()
    await rm(scratch, { recursive: true, force: true })
  })

  it("serves each user's usage, and the quota only where it is enabled", async () => {
    const scrape = await scanAndScrape(await start({}))
    const of = (name: string, user: RgwUser) =>
      sampleValue(scrape, `objstore_${name}`, { uid: user.uid, tenant: user.tenant })
    assert.equal(of('user_usage_total_bytes', alice), 1300)
    assert.equal(of('user_usage_objects', alice), 2)
    assert.equal(of('user_quota_max_bytes', alice), QUOTA_BYTES_AS_RGW_KEEPS_IT)
    assert.equal(of('user_quota_max_objects', alice), 50)
    assert.equal(of('user_usage_total_bytes', bob), 777)
    assert.equal(of('user_usage_objects', bob), 1)
    assert.equal(bob.tenant, 'acme')
    // Not 0, not -1: absent.
    assert.equal(findSamples(scrape, 'objstore_user_quota_max_bytes', { uid: 'bob' }).length, 0)
    assert.equal(findSamples(scrape, 'objstore_user_quota_max_objects', { uid: 'bob' }).length, 0)
    assert.equal(findSamples(scrape, 'objstore_user_usage_total_bytes').length, users())
    assert.equal(sampleValue(scrape, 'objstore_users_omitted'), 0)
    // The usage log is opt-in: not asked for, not read.
    assert.equal(findSamples(scrape, 'objstore_bucket_usage_log_ops_total').length, 0)
  })

  it('never shows a key or secret: user answers carry them, scrapes and logs do not', async () => {
    const running = await start({ BUCKET_METRICS: 'all', LOG_LEVEL: 'debug' })
    await running.exporter.scanner.scanNow()
    const text = await (await fetch(`${running.baseUrl}${running.config.METRICS_PATH}`)).text()
    const logs = JSON.stringify(running.logs.lines)
    for (const secret of [
      alice.secretAccessKey,
      bob.secretAccessKey,
      cluster.secretAccessKey,
      alice.accessKeyId,
    ]) {
      assert.equal(text.includes(secret), false)
      assert.equal(logs.includes(secret), false)
    }
  })

  it('measures the first RGW_USERS_MAX users of the list, counts and logs the others', async () => {
    const running = await start({ RGW_USERS_MAX: '1' })
    const scrape = await scanAndScrape(running)
    assert.equal(findSamples(scrape, 'objstore_user_usage_total_bytes').length, 1)
    assert.equal(sampleValue(scrape, 'objstore_users_omitted'), users() - 1)
    const warnings = running.logs.lines.filter((line) => line.msg === 'users past RGW_USERS_MAX not measured')
    assert.equal(warnings.length, 1)
    assert.equal(warnings[0]?.omitted, users() - 1)
    await running.exporter.scanner.scanNow()
    assert.equal(
      running.logs.lines.filter((line) => line.msg === 'users past RGW_USERS_MAX not measured').length,
      1,
      'logged when it changes, not every scan',
    )
  })

  it('follows the pages of the user list (RGW pages it by max-entries and marker)', async () => {
    const client = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: cluster,
    })
    const scan = await readUsers(client, { maxUsers: 100, pageSize: 1, signal: AbortSignal.timeout(60_000) })
    assert.deepEqual(
      scan.users.map((user) => (user.tenant ? `${user.tenant}$${user.uid}` : user.uid)),
      ['alice', 'objstore-test', 'acme$bob'],
    )
  })

  it('RGW_USER_METRICS=false: no user family', async () => {
    const scrape = await scanAndScrape(await start({ RGW_USER_METRICS: 'false' }))
    for (const family of [
      'user_usage_total_bytes',
      'user_usage_objects',
      'user_quota_max_bytes',
      'users_omitted',
    ])
      assert.equal(findSamples(scrape, `objstore_${family}`).length, 0, family)
    assert.ok(findSamples(scrape, 'objstore_bucket_usage_total_bytes').length > 0)
  })

  it('usage log: ops, successful ops and bytes per bucket and category, exact', async () => {
    const scrape = await scanAndScrape(await start({ BUCKET_METRICS: 'default,usage_log' }))
    const at = (name: string, bucket: string, category: string) =>
      sampleValue(scrape, `objstore_bucket_usage_log_${name}_total`, { bucket, category })
    assert.equal(at('ops', 'alice-b', 'put_obj'), 2)
    assert.equal(at('successful_ops', 'alice-b', 'put_obj'), 2)
    assert.equal(at('received_bytes', 'alice-b', 'put_obj'), 1300)
    assert.equal(at('sent_bytes', 'alice-b', 'put_obj'), 0)
    assert.equal(at('ops', 'alice-b', 'get_obj'), 1)
    assert.equal(at('sent_bytes', 'alice-b', 'get_obj'), 1000)
    assert.equal(at('ops', 'alice-b', 'create_bucket'), 1)
    // bob's bucket, of tenant acme, labelled as the rgw source labels it.
    assert.equal(at('ops', 'acme:bob-b', 'put_obj'), 1)
    assert.equal(at('received_bytes', 'acme:bob-b', 'put_obj'), 777)
    assert.deepEqual(
      findSamples(scrape, 'objstore_bucket_usage_log_ops_total', { bucket: 'alice-b' })
        .map((s) => s.labels.category)
        .sort(),
      ['create_bucket', 'get_obj', 'put_obj'],
    )
  })

  it('usage log: a later read asks RGW only for the hours from the start given (a UTC hour)', async () => {
    const client = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: cluster,
    })
    const whole = await client.usageLog(AbortSignal.timeout(60_000))
    const epochs = [...(whole.get('alice-b')?.keys() ?? [])].sort((a, b) => a - b)
    const newest = epochs.at(-1)
    assert.ok(newest !== undefined, 'alice-b has usage log entries')
    const from = (start: number) => client.usageLog(AbortSignal.timeout(60_000), start)
    // From its own hour, the newest hour is there, with the same figures; from the next hour, not.
    assert.deepEqual((await from(newest)).get('alice-b')?.get(newest), whole.get('alice-b')?.get(newest))
    assert.equal((await from(newest + 3600)).get('alice-b')?.get(newest), undefined)
  })

  it('usage log: the exporter reads the whole log once, then only from the hour before the newest it saw', async () => {
    const client = new RgwAdminClient({
      endpoint: cluster.endpoint,
      region: cluster.region,
      credentials: cluster,
    })
    // The hours of the two buckets the scenario made (the exporter measures them, and maybe more).
    const newestHour = async () => {
      const log = await client.usageLog(AbortSignal.timeout(60_000))
      const hours = ['alice-b', 'bob-b'].flatMap((bucket) => [...(log.get(bucket)?.keys() ?? [])])
      return { newest: Math.max(...hours), hours: new Set(hours) }
    }
    const before = await newestHour()
    const proxy = await startRecordingProxy(cluster.endpoint, { keepHost: true })
    try {
      const running = await startExporter(
        rgwSourceEnv({ ...cluster, endpoint: `http://${proxy.target}` }, 'rgw', {
          BUCKET_METRICS: 'default,usage_log',
        }),
      )
      exporters.push(running)
      await running.exporter.scanner.scanNow()
      await running.exporter.scanner.scanNow()
      const after = await newestHour()
      const usageReads = proxy.requests
        .filter((line) => line.startsWith('GET /admin/usage?'))
        .map((line) => new URL(line.slice('GET '.length), 'http://rgw').searchParams)
      assert.equal(
        usageReads.length,
        2,
        `two scans, two reads of the usage log: ${proxy.requests.join(', ')}`,
      )
      assert.equal(usageReads[0]?.get('start'), null, 'the first scan reads the whole log')
      const start = usageReads[1]?.get('start')
      assert.match(start ?? '', /^\d{4}-\d{2}-\d{2} \d{2}:00:00$/, 'a whole UTC hour')
      const startEpoch = Date.parse(`${(start ?? '').replace(' ', 'T')}Z`) / 1000
      // One hour before the newest hour the first scan saw: at least the newest of those two
      // buckets before it, and an hour their log holds.
      assert.ok(startEpoch + 3600 >= before.newest, `${start}: not before the newest hour seen`)
      assert.ok(after.hours.has(startEpoch + 3600), `${start}: the hour after it is in the log`)
      await running.close()
      exporters.splice(exporters.indexOf(running), 1)
    } finally {
      await proxy.close()
    }
  })

  it('usage log: counters grow by what was done, never down when RGW trims the log; the state file keeps them', async () => {
    const stateFile = join(scratch, 'state.json')
    const running = await start({ BUCKET_METRICS: 'default,usage_log', STATE_FILE: stateFile })
    const puts = (scrape: ParsedExposition) =>
      sampleValue(scrape, 'objstore_bucket_usage_log_ops_total', { bucket: 'alice-b', category: 'put_obj' })
    const first = puts(await scanAndScrape(running))
    const before = await loggedOps(alice, 'alice-b')
    await put(aliceS3, 'alice-b', 'k3', 10)
    await waitFor(
      'the usage log to hold the put',
      async () => (await loggedOps(alice, 'alice-b')) === before + 1,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    )
    assert.equal(puts(await scanAndScrape(running)), first + 1)
    // Trim every entry of alice's: the log's sum drops to 0, the counter must not.
    await cluster.radosgwAdmin(['usage', 'trim', `--uid=${alice.id}`])
    assert.equal(await loggedOps(alice, 'alice-b'), 0)
    const trimmed = await scanAndScrape(running)
    assert.equal(puts(trimmed), first + 1)
    assert.equal(
      sampleValue(trimmed, 'objstore_bucket_usage_log_received_bytes_total', {
        bucket: 'alice-b',
        category: 'put_obj',
      }),
      1300 + 10,
    )
    // The same hour written again after the trim: all of it is new.
    await put(aliceS3, 'alice-b', 'k4', 20)
    await waitFor(
      'the usage log to hold the put after the trim',
      async () => (await loggedOps(alice, 'alice-b')) === 1,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    )
    assert.equal(puts(await scanAndScrape(running)), first + 2)
    await running.close()
    exporters.splice(exporters.indexOf(running), 1)

    // A restart serves the counters from the state file, and carries on from them.
    const restarted = await start({ BUCKET_METRICS: 'default,usage_log', STATE_FILE: stateFile })
    const loaded = await restarted.scrape()
    assert.equal(puts(loaded), first + 2)
    assert.equal(sampleValue(loaded, 'objstore_user_usage_total_bytes', { uid: 'alice', tenant: '' }), 1300)
    assert.equal(puts(await scanAndScrape(restarted)), first + 2)
  })

  it('a key without the users=read and usage=read caps: those families absent, one warning each naming the cap', async () => {
    const limited = await cluster.createUser({ uid: 'buckets-only', caps: 'buckets=read' })
    const running = await start({ BUCKET_METRICS: 'default,usage_log' }, limited)
    const scrape = await scanAndScrape(running)
    await running.exporter.scanner.scanNow()
    assert.ok(findSamples(scrape, 'objstore_bucket_usage_total_bytes', { bucket: 'alice-b' }).length === 1)
    assert.equal(sampleValue(scrape, 'objstore_source_up', { source: 'rgw' }), 1)
    for (const family of ['user_usage_total_bytes', 'users_omitted', 'bucket_usage_log_ops_total'])
      assert.equal(findSamples(scrape, `objstore_${family}`).length, 0, family)
    const users = running.logs.lines.filter((line) => line.msg === 'user figures not read')
    assert.equal(users.length, 1, 'once, not per scan')
    assert.match(String(users[0]?.error), /users=read/)
    const log = running.logs.lines.filter((line) => String(line.msg).startsWith('RGW usage log not read'))
    assert.equal(log.length, 1, 'once, not per scan')
    assert.match(String(log[0]?.error), /usage=read/)
    assert.equal(JSON.stringify(running.logs.lines).includes(limited.secretAccessKey), false)
    await running.close()
    exporters.splice(exporters.indexOf(running), 1)
    await cluster.radosgwAdmin(['user', 'rm', `--uid=${limited.uid}`])
  })

  it('promtool check metrics is clean on a scrape with every family; OpenMetrics types the counters', async (t) => {
    const skip = promtoolSkipReason()
    if (skip) return t.skip(skip)
    const running = await start({ BUCKET_METRICS: 'all' })
    await running.exporter.scanner.scanNow()
    const url = `${running.baseUrl}${running.config.METRICS_PATH}`
    const text = await (await fetch(url)).text()
    assert.match(text, /objstore_bucket_usage_log_ops_total\{/)
    assert.match(text, /objstore_user_quota_max_bytes\{/)
    assert.equal(promtoolCheckMetrics(text), '')
    const openmetrics = await (
      await fetch(url, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } })
    ).text()
    // promtool lints the text format only; OpenMetrics names the counter family without _total.
    assert.match(openmetrics, /# TYPE objstore_bucket_usage_log_ops counter/)
    assert.match(
      openmetrics,
      /objstore_bucket_usage_log_ops_total\{bucket="alice-b",category="put_obj"\} \d+/,
    )
  })
})
