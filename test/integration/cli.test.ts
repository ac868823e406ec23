import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parseExposition, sampleValue } from '../support/exposition.js'
import { waitForHttpOk } from '../support/http-ready.js'
import {
  type CommandRun,
  freePort,
  refusalProblems,
  runCommand,
  runUntilExit,
  startExporterProcess,
} from '../support/process.js'
import { promtoolCheckMetrics, promtoolSkipReason } from '../support/promtool.js'
import { type RgwCluster, startRgwCluster } from '../support/rgw-cluster.js'
import { rgwS3Client, rgwSourceEnv } from '../support/rgw-scenario.js'
import { fillBucket, type S3rverProcess, startS3rver } from '../support/s3rver.js'

/**
 * The command line on the real entry point (src/main.ts as `npm start` runs it, in a child
 * process with exactly the given environment): check-config and `scan --once` on fs, s3rver and a
 * real Ceph RGW, the textfile output through promtool, flags over env over .env.
 */

interface ScanJson {
  source: string
  sourceUp: boolean
  totals: { buckets: number; bytes: number; objects: number }
  buckets: { name: string; bytes: number | null; objects: number | null; scanSuccess: boolean }[]
}

const ok = (run: CommandRun) => assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`)

/** The figures of each bucket of a JSON scan, by name. */
function figures(run: CommandRun): Record<string, [number | null, number | null]> {
  ok(run)
  const json = JSON.parse(run.stdout) as ScanJson
  return Object.fromEntries(json.buckets.map((bucket) => [bucket.name, [bucket.bytes, bucket.objects]]))
}

/** check-config's `NAME=value  # origin` lines, by name. */
function settings(run: CommandRun): Map<string, { value: string; origin: string }> {
  ok(run)
  const lines = run.stdout.split('\n').filter((line) => /^[A-Z]/.test(line))
  return new Map(
    lines.map((line) => {
      const match = /^([A-Z0-9_]+)=(.*?)\s+# (.*)$/.exec(line)
      assert.ok(match, line)
      return [match[1] as string, { value: match[2] as string, origin: match[3] as string }]
    }),
  )
}

describe('objstore-exporter command line on fs', () => {
  let folder: string
  let env: Record<string, string>
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-cli-'))
    const data = join(folder, 'data')
    await mkdir(join(data, 'photos', '2026'), { recursive: true })
    await mkdir(join(data, 'empty-bucket'))
    await writeFile(join(data, 'photos', 'a.jpg'), Buffer.alloc(1_500_000))
    await writeFile(join(data, 'photos', '2026', 'b.jpg'), Buffer.alloc(2048))
    env = { DATA_DIR: data, SCAN_INTERVAL_SECONDS: '86400' }
  })
  after(() => rm(folder, { recursive: true, force: true }))

  it('prints -v, --version and --help; a command lists only the flags it uses', async () => {
    const { version: expected } = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    )
    for (const flag of ['--version', '-v']) {
      const version = await runCommand([flag], env, folder)
      ok(version)
      assert.equal(version.stdout.trim(), expected, flag)
    }
    const help = await runCommand(['--help'], env, folder)
    ok(help)
    for (const command of ['serve', 'check-config', 'scan'])
      assert.match(help.stdout, new RegExp(`\\b${command}\\b`))
    const scanHelp = await runCommand(['scan', '--help'], env, folder)
    for (const flag of ['--once', '--format', '--output', '--source', '--data-dir', '--log.level'])
      assert.ok(scanHelp.stdout.includes(flag), flag)
    // A scan serves no HTTP: the web flags would do nothing there.
    assert.doesNotMatch(scanHelp.stdout, /--web\./)
    const serveHelp = await runCommand(['serve', '--help'], env, folder)
    for (const flag of ['--web.listen-address', '--web.telemetry-path', '--source'])
      assert.ok(serveHelp.stdout.includes(flag), flag)
  })

  it('scan --once prints a du-like table with a total line', async () => {
    const run = await runCommand(['scan', '--once', '--bytes'], env, folder)
    ok(run)
    const rows = run.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
    assert.deepEqual(rows[0], ['SIZE', 'OBJECTS', 'BUCKET'])
    assert.deepEqual(rows.slice(1, 3), [
      ['0', '0', 'empty-bucket'],
      ['1502048', '2', 'photos'],
    ])
    assert.deepEqual(rows[3]?.slice(0, 3), ['1502048', '2', 'total'])
    const human = await runCommand(['scan', '--once'], env, folder)
    assert.match(human.stdout, /^\s*1\.5M\s+2\s+photos$/m)
  })

  it('scan --once --format json gives every bucket exactly', async () => {
    assert.deepEqual(figures(await runCommand(['scan', '--once', '--format', 'json'], env, folder)), {
      'empty-bucket': [0, 0],
      photos: [1_502_048, 2],
    })
  })

  it('scan --once --format prometheus --output writes a textfile promtool accepts, atomically', async (t) => {
    const skip = promtoolSkipReason()
    if (skip) return t.skip(skip)
    const textfiles = join(folder, 'textfiles')
    await mkdir(textfiles)
    const output = join(textfiles, 'objstore.prom')
    await writeFile(output, 'stale content from an earlier run\n')
    const run = await runCommand(
      ['scan', '--once', '--format', 'prometheus', '--output', output],
      env,
      folder,
    )
    ok(run)
    assert.equal(run.stdout, '', 'nothing on stdout when writing a file')
    assert.deepEqual(await readdir(textfiles), ['objstore.prom'], 'no temporary file left beside it')
    const text = await readFile(output, 'utf8')
    assert.equal(promtoolCheckMetrics(text), '')
    const parsed = parseExposition(text)
    assert.equal(sampleValue(parsed, 'objstore_bucket_usage_total_bytes', { bucket: 'photos' }), 1_502_048)
    assert.equal(sampleValue(parsed, 'objstore_bucket_usage_objects', { bucket: 'photos' }), 2)
    assert.equal(sampleValue(parsed, 'objstore_cluster_buckets', {}), 2)
    // Named as /metrics names them: MinIO's namespace and server label when configured.
    const minio = await runCommand(
      ['scan', '--once', '--format', 'prometheus'],
      { ...env, METRICS_NAMESPACE: 'minio', METRICS_SERVER_LABEL: 'node-1:9000' },
      folder,
    )
    ok(minio)
    assert.equal(promtoolCheckMetrics(minio.stdout), '')
    const named = parseExposition(minio.stdout)
    assert.ok(named.samples.length > 0)
    assert.ok(
      named.samples.every(
        (sample) => sample.labels.server === 'node-1:9000' && sample.name.startsWith('minio_'),
      ),
    )
    assert.equal(sampleValue(named, 'minio_bucket_usage_total_bytes', { bucket: 'photos' }), 1_502_048)
    // A folder that does not exist: one line naming the file, exit 1, nothing left behind.
    const missing = join(folder, 'no-such-folder', 'objstore.prom')
    const refused = await runCommand(
      ['scan', '--once', '--format', 'prometheus', '--output', missing],
      env,
      folder,
    )
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /scan: cannot write .*no-such-folder\/objstore\.prom: ENOENT/)
  })

  it("scan --once folds and prints BUCKET_METRICS's groups, as serve writes them", async () => {
    const families = async (groups: string) => {
      const run = await runCommand(
        ['scan', '--once', '--format', 'prometheus'],
        { ...env, BUCKET_METRICS: groups },
        folder,
      )
      ok(run)
      const parsed = parseExposition(run.stdout)
      return { parsed, names: new Set(parsed.samples.map((sample) => sample.name)) }
    }
    const plain = await families('')
    assert.equal(
      sampleValue(plain.parsed, 'objstore_bucket_usage_total_bytes', { bucket: 'photos' }),
      1_502_048,
    )
    assert.ok(plain.names.has('objstore_bucket_objects_size_distribution'))
    for (const name of ['objstore_bucket_age_bytes', 'objstore_bucket_prefix_usage_total_bytes'])
      assert.equal(plain.names.has(name), false, name)
    const usage = await families('usage')
    assert.equal(usage.names.has('objstore_bucket_objects_size_distribution'), false)
    assert.equal(sampleValue(usage.parsed, 'objstore_bucket_usage_objects', { bucket: 'photos' }), 2)
    const named = await families('default,age,prefixes')
    assert.equal(
      sampleValue(named.parsed, 'objstore_bucket_age_bytes', { bucket: 'photos', age: 'lt_1d' }),
      1_502_048,
    )
    assert.equal(
      sampleValue(named.parsed, 'objstore_bucket_prefix_usage_total_bytes', {
        bucket: 'photos',
        prefix: '2026/',
      }),
      2048,
    )
    const refused = await runCommand(['scan', '--once'], { ...env, BUCKET_METRICS: 'ages' }, folder)
    assert.equal(refused.code, 2)
    assert.deepEqual(refusalProblems(refused.stderr), [
      'BUCKET_METRICS: unknown group "ages"; expected a comma-separated list of usage, versions, quota, sizes, times, storage_class, multipart, age, hidden, prefixes, info, index, usage_log, scan, default, all',
    ])
  })

  it('check-config prints the effective configuration with its origins, secrets masked', async () => {
    const token = 'tok-7f3a9c1e5b2d8f4a6c0e9b3d'
    await writeFile(join(folder, '.env'), `PORT=1111\nLOG_LEVEL=debug\nMETRICS_AUTH_TOKEN=${token}\n`)
    const fromEnv = await runCommand(['check-config'], { ...env, PORT: '2222' }, folder)
    assert.ok(!fromEnv.stdout.includes(token) && !fromEnv.stderr.includes(token), 'the token never printed')
    const shown = settings(fromEnv)
    assert.deepEqual(shown.get('PORT'), { value: '2222', origin: 'the environment' })
    assert.deepEqual(shown.get('LOG_LEVEL'), { value: 'debug', origin: '.env line 2' })
    assert.deepEqual(shown.get('METRICS_AUTH_TOKEN'), { value: '(set, hidden)', origin: '.env line 3' })
    assert.deepEqual(shown.get('SCAN_CONCURRENCY'), { value: '4', origin: 'default' })
    // A flag wins over the environment and the file.
    const flagged = settings(
      await runCommand(
        ['check-config', '--web.listen-address', '127.0.0.1:3333', '--log.level', 'warn', '--source', 'fs'],
        { ...env, PORT: '2222' },
        folder,
      ),
    )
    assert.deepEqual(flagged.get('PORT'), { value: '3333', origin: '--web.listen-address' })
    assert.deepEqual(flagged.get('HOST'), { value: '127.0.0.1', origin: '--web.listen-address' })
    assert.deepEqual(flagged.get('LOG_LEVEL'), { value: 'warn', origin: '--log.level' })
    // `--env-file` names another file.
    await writeFile(join(folder, 'other.env'), 'PORT=4444\n')
    const other = settings(await runCommand(['check-config', '--env-file', 'other.env'], env, folder))
    assert.deepEqual(other.get('PORT'), { value: '4444', origin: 'other.env line 1' })
  })

  it('check-config refuses what serve refuses, with the same lines and exit code', async () => {
    const bad = { ...env, PORT: '99999', SCAN_CONCURRENCY: 'four', EC_PARITY: '3' }
    const [checked, served] = await Promise.all([
      runCommand(['check-config'], bad, folder),
      runUntilExit(bad, folder),
    ])
    assert.equal(checked.code, 2)
    assert.equal(served.code, 2)
    assert.equal(checked.stdout, '')
    assert.ok(refusalProblems(checked.stderr).length >= 2, checked.stderr)
    assert.deepEqual(refusalProblems(checked.stderr), served.problems)
    // A flag's bad value names the flag.
    const flagged = await runCommand(['check-config', '--web.listen-address', 'localhost'], env, folder)
    assert.equal(flagged.code, 2)
    assert.match(flagged.stderr, /--web\.listen-address="localhost": expected \[host\]:port/)
    // A token file that cannot be read is refused before listening, by both.
    const missing = { ...env, METRICS_AUTH_TOKEN_FILE: join(folder, 'no-such-token') }
    const [checkedFile, servedFile] = await Promise.all([
      runCommand(['check-config'], missing, folder),
      runUntilExit(missing, folder),
    ])
    assert.equal(checkedFile.code, 2)
    assert.deepEqual(refusalProblems(checkedFile.stderr), servedFile.problems)
  })

  it('check-config, scan --once and serve agree on BUCKET_METRICS: one vocabulary, one answer', async () => {
    const expected =
      'a comma-separated list of usage, versions, quota, sizes, times, storage_class, multipart, age, hidden, prefixes, info, index, usage_log, scan, default, all'
    const refusals: Record<string, string> = {
      ages: `BUCKET_METRICS: unknown group "ages"; expected ${expected}`,
      'default,prefix,sizes,bytes': `BUCKET_METRICS: unknown group "prefix", "bytes"; expected ${expected}`,
    }
    for (const [value, line] of Object.entries(refusals)) {
      const bad = { ...env, BUCKET_METRICS: value }
      const [checked, scanned, served] = await Promise.all([
        runCommand(['check-config'], bad, folder),
        runCommand(['scan', '--once'], bad, folder),
        runUntilExit(bad, folder),
      ])
      for (const [command, run] of [
        ['check-config', checked],
        ['scan --once', scanned],
        ['serve', served],
      ] as const) {
        assert.equal(run.code, 2, `${command} with BUCKET_METRICS=${value}: ${run.stderr}`)
        assert.equal(run.stdout, '', command)
        assert.deepEqual(refusalProblems(run.stderr), [line], command)
      }
    }
    for (const value of ['default,age,prefixes', 'all', 'scan,usage']) {
      const good = { ...env, BUCKET_METRICS: value }
      const port = await freePort()
      const served = startExporterProcess({ ...good, PORT: String(port), LOG_LEVEL: 'warn' }, folder)
      const [checked, scanned] = await Promise.all([
        runCommand(['check-config'], good, folder),
        runCommand(['scan', '--once'], good, folder),
      ])
      try {
        await waitForHttpOk(`http://127.0.0.1:${port}/healthz`, () => served.child.exitCode === null)
      } finally {
        served.kill('SIGTERM')
      }
      assert.equal(await served.exited, 0, `serve with BUCKET_METRICS=${value}: ${served.stderr()}`)
      ok(checked)
      ok(scanned)
      for (const run of [checked, scanned, { stderr: served.stderr() }])
        assert.deepEqual(refusalProblems(run.stderr), [], value)
    }
  })

  it('serve stays the default command, and takes the flags', async () => {
    const port = await freePort()
    const child = startExporterProcess(env, folder, {
      args: ['--web.listen-address', `127.0.0.1:${port}`, '--log.level', 'warn'],
    })
    try {
      await waitForHttpOk(`http://127.0.0.1:${port}/healthz`, () => child.child.exitCode === null)
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await child.exited, 0)
  })
})

describe('objstore-exporter command line on s3rver', () => {
  let s3: S3rverProcess
  let folder: string
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-cli-'))
    s3 = await startS3rver()
    await fillBucket(s3.client, 'alpha', [
      { key: 'a', size: 10 },
      { key: 'dir/b', size: 2000 },
    ])
    await fillBucket(s3.client, 'beta-logs', [{ key: 'x.log', size: 4096 }])
  })
  after(async () => {
    await s3?.stop()
    await rm(folder, { recursive: true, force: true })
  })

  it('scan --once measures every bucket, and the selection applies', async () => {
    assert.deepEqual(
      figures(await runCommand(['scan', '--once', '--format', 'json'], { ...s3.exporterEnv }, folder)),
      {
        alpha: [2010, 2],
        'beta-logs': [4096, 1],
      },
    )
    const selected = await runCommand(
      ['scan', '--once', '--format', 'json'],
      { ...s3.exporterEnv, BUCKETS_INCLUDE: 'beta-*' },
      folder,
    )
    assert.deepEqual(figures(selected), { 'beta-logs': [4096, 1] })
  })

  it('check-config shows the endpoint and hides the keys', async () => {
    const run = await runCommand(['check-config'], { ...s3.exporterEnv }, folder)
    const shown = settings(run)
    assert.equal(shown.get('S3_ENDPOINT')?.value, new URL(s3.endpoint).toString())
    assert.equal(shown.get('S3_SECRET_ACCESS_KEY')?.value, '(set, hidden)')
    assert.ok(!run.stdout.includes('S3RVER'), 'no key printed')
  })

  it('scan --once on a source that is down still prints, and exits 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const run = await runCommand(
      ['scan', '--once', '--format', 'json'],
      { ...s3.exporterEnv, S3_ENDPOINT: closed, SCAN_TIMEOUT_SECONDS: '5' },
      folder,
    )
    assert.equal(run.code, 1, run.stderr)
    const json = JSON.parse(run.stdout) as ScanJson
    assert.equal(json.sourceUp, false)
    // The last line says why (a cron job's mail may show only it), not "see the log lines above".
    const last = run.stderr.trim().split('\n').at(-1) ?? ''
    assert.match(last, /^objstore-exporter: scan: the source is down: .*ECONNREFUSED/)
    assert.ok(!run.stderr.includes('S3RVER'), 'no key in the log lines')
  })
})

describe('objstore-exporter command line on Ceph RGW', { timeout: 10 * 60_000 }, () => {
  let cluster: RgwCluster
  let folder: string
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'objstore-cli-'))
    cluster = await startRgwCluster()
    const client = rgwS3Client(cluster)
    try {
      await fillBucket(client, 'ledger', [
        { key: 'one', size: 1000 },
        { key: 'two', size: 3000 },
        { key: 'three/3', size: 5 },
      ])
      await fillBucket(client, 'archive', [{ key: 'big', size: 1 << 20 }])
    } finally {
      client.destroy()
    }
  })
  after(async () => {
    await cluster?.stop()
    await rm(folder, { recursive: true, force: true })
  })

  for (const source of ['s3', 'rgw'] as const) {
    it(`scan --once with BUCKETS_SOURCE=${source} gives what was written`, async () => {
      const run = await runCommand(
        ['scan', '--once', '--format', 'json'],
        rgwSourceEnv(cluster, source),
        folder,
      )
      assert.deepEqual(figures(run), { archive: [1 << 20, 1], ledger: [4005, 3] })
      assert.equal((JSON.parse(run.stdout) as ScanJson).source, source)
    })
  }

  it('scan --once --format prometheus for rgw passes promtool', async (t) => {
    const skip = promtoolSkipReason()
    if (skip) return t.skip(skip)
    const run = await runCommand(
      ['scan', '--once', '--format', 'prometheus'],
      rgwSourceEnv(cluster, 'rgw'),
      folder,
    )
    ok(run)
    assert.equal(promtoolCheckMetrics(run.stdout), '')
    assert.equal(
      sampleValue(parseExposition(run.stdout), 'objstore_bucket_usage_total_bytes', { bucket: 'ledger' }),
      4005,
    )
  })

  it('check-config for rgw validates and hides the secret key', async () => {
    const run = await runCommand(['check-config', '--source', 'rgw'], rgwSourceEnv(cluster, 's3'), folder)
    const shown = settings(run)
    assert.deepEqual(shown.get('BUCKETS_SOURCE'), { value: 'rgw', origin: '--source' })
    assert.ok(!run.stdout.includes(cluster.secretAccessKey))
    // rgw lists no keys: naming prefixes, or setting its variables, is said rather than ignored.
    const prefixes = await runCommand(
      ['check-config', '--source', 'rgw'],
      { ...rgwSourceEnv(cluster, 's3'), BUCKET_METRICS: 'default,prefixes', PREFIX_DEPTH: '2' },
      folder,
    )
    assert.equal(prefixes.code, 0, prefixes.stderr)
    assert.deepEqual(
      prefixes.stderr.split('\n').filter((line) => line.includes('prefixes')),
      [
        'objstore-exporter: warning: PREFIX_DEPTH set, but BUCKETS_SOURCE=rgw gives no prefixes figures (it reads counters and lists no keys), so nothing reads it: remove it',
        'objstore-exporter: warning: BUCKET_METRICS names prefixes, but BUCKETS_SOURCE=rgw gives none of its figures (it reads counters and lists no keys): its families stay empty',
      ],
    )
    const refused = await runCommand(['check-config', '--source', 'rgw'], { BUCKETS_SOURCE: 'rgw' }, folder)
    assert.equal(refused.code, 2)
    assert.ok(
      refusalProblems(refused.stderr).some((line) => line.startsWith('S3_ENDPOINT')),
      refused.stderr,
    )
  })
})
