/**
 * A throwaway single-node Ceph cluster (1 monitor, 1 memstore OSD, radosgw) on loopback, for tests
 * that need a production S3 server: versioning, delete markers, ListMultipartUploads and the RGW
 * admin API. Everything lives in one temporary folder (config, mon/osd data, sockets, logs) and is
 * removed by stop(); the daemons are started and ended by daemons.ts. Facts behind each setting:
 * shared/reference/test-servers.md, "Ceph RGW".
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DaemonSet,
  type DebianServer,
  ensureDebianPackages,
  runTool,
  startOnFreshPorts,
  untilDeadline,
} from './daemons.js'
import { freePort } from './process.js'
import { waitForValue } from './wait-for.js'

/** Debian packages that bring every binary below. */
export const CEPH_PACKAGES = ['ceph-mon', 'ceph-osd', 'radosgw', 'ceph-common'] as const
const CEPH_BINARIES = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'monmaptool'] as const

/** The admin read caps the exporter's RGW source needs (GET /admin/bucket?stats=true). */
export const RGW_ADMIN_READ_CAPS = 'buckets=read;users=read;usage=read;metadata=read'

/** A user to create with radosgw-admin: keys (made from the uid when not given), tenant, quota, caps. */
export interface RgwUserOptions {
  readonly uid: string
  /** Its tenant; none: the default (global) tenant. */
  readonly tenant?: string
  readonly displayName?: string
  /** 20 characters made from the uid when not given. */
  readonly accessKeyId?: string
  readonly secretAccessKey?: string
  /** Admin caps (`buckets=read;usage=read`...); none when not given. */
  readonly caps?: string
  /** A user quota, set and enabled (a limit not given: none). */
  readonly quota?: { readonly maxBytes?: number; readonly maxObjects?: number }
  readonly maxBuckets?: number
}

export interface RgwUser {
  readonly uid: string
  /** '' for the default tenant. */
  readonly tenant: string
  /** How RGW names the user: `tenant$uid` in a tenant, `uid` otherwise. */
  readonly id: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
}

export interface RgwCluster {
  /** `http://127.0.0.1:PORT`, path-style S3 and the admin API under /admin. */
  readonly endpoint: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** Any region signs; RGW's default zonegroup answers GetBucketLocation with "default". */
  readonly region: string
  /** The temporary folder holding the cluster (removed by stop). */
  readonly dir: string
  /** Pids of the daemons still running (monitor, OSD, radosgw), in start order. */
  daemonPids(): number[]
  /** Runs radosgw-admin against this cluster and returns its stdout (for quotas and the like). */
  radosgwAdmin(args: readonly string[]): Promise<string>
  /** Creates an S3 user (radosgw-admin user create), with its tenant, quota and caps when given. */
  createUser(options: RgwUserOptions): Promise<RgwUser>
  /** Sets and enables a bucket-scoped quota (what the admin API then reports as the bucket's quota). */
  setBucketQuota(
    bucket: string,
    quota: { readonly maxBytes: number; readonly maxObjects?: number },
  ): Promise<void>
  /** Stops every daemon (reverse start order, by pid) and removes the folder. Idempotent. */
  stop(): Promise<void>
}

export interface RgwClusterOptions {
  /** RAM the memstore OSD may hold (default 1 GiB). */
  readonly memstoreBytes?: number
  /** Maximum buckets the test user may own (RGW's default is 1,000). */
  readonly maxBuckets?: number
  /** Overall bound on start-up, install excluded (default 120 s). */
  readonly startTimeoutMs?: number
  /** More radosgw settings (`rgw enable usage log`: `true`...), written to its config section. */
  readonly rgwSettings?: Readonly<Record<string, string>>
}

/** The Ceph packages, for daemons.ts's install and skip. */
export const CEPH_SERVER: DebianServer = {
  name: 'Ceph RGW',
  packages: CEPH_PACKAGES,
  binaries: CEPH_BINARIES,
}

/** Installs Debian's Ceph packages when a binary is missing (root only; apt-get update first). */
export function ensureCephPackages(): Promise<void> {
  return ensureDebianPackages(CEPH_SERVER)
}

/** `user create`, then its quota and caps, through `radosgwAdmin`. */
async function createUser(
  radosgwAdmin: (args: readonly string[]) => Promise<string>,
  options: RgwUserOptions,
): Promise<RgwUser> {
  const { uid, tenant = '' } = options
  const accessKeyId =
    options.accessKeyId ??
    `${uid.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}KEY${'0'.repeat(20)}`.slice(0, 20)
  const secretAccessKey = options.secretAccessKey ?? `${uid}-secret-${'0'.repeat(40)}`.slice(0, 40)
  const id = tenant ? `${tenant}$${uid}` : uid
  await radosgwAdmin([
    'user',
    'create',
    `--uid=${uid}`,
    ...(tenant ? [`--tenant=${tenant}`] : []),
    `--display-name=${options.displayName ?? uid}`,
    `--access-key=${accessKeyId}`,
    `--secret-key=${secretAccessKey}`,
    ...(options.maxBuckets === undefined ? [] : [`--max-buckets=${options.maxBuckets}`]),
  ])
  const who = [`--uid=${uid}`, ...(tenant ? [`--tenant=${tenant}`] : [])]
  if (options.quota) {
    const limits = [
      ...(options.quota.maxBytes === undefined ? [] : [`--max-size=${options.quota.maxBytes}`]),
      ...(options.quota.maxObjects === undefined ? [] : [`--max-objects=${options.quota.maxObjects}`]),
    ]
    await radosgwAdmin(['quota', 'set', ...who, '--quota-scope=user', ...limits])
    await radosgwAdmin(['quota', 'enable', ...who, '--quota-scope=user'])
  }
  if (options.caps) await radosgwAdmin(['caps', 'add', ...who, `--caps=${options.caps}`])
  return { uid, tenant, id, accessKeyId, secretAccessKey }
}

function cephConfig(
  dir: string,
  fsid: string,
  monPort: number,
  rgwPort: number,
  memstoreBytes: number,
  rgwSettings: Readonly<Record<string, string>> = {},
): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
# Without this radosgw loops on "get_initial_auth_request returned -13" when auth is none.
ms mon client mode = crc
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
crash dir = ${dir}/crash
keyring = ${dir}/keyring
mon data = ${dir}/mon/$cluster-$id
osd data = ${dir}/osd/$cluster-$id
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
# One OSD: pools of size 1, placement on the OSD itself, no autoscaler.
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
# Start-up 13 s -> 2.5 s.
paxos propose interval = 0.05
paxos min wait = 0.01

[client.rgw]
# Without tcp_nodelay every response waits about 45 ms (Nagle against delayed ACKs).
rgw frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw data = ${dir}/rgw
${Object.entries(rgwSettings)
  .map(([name, value]) => `${name} = ${value}\n`)
  .join('')}`
}

/**
 * Builds and starts the cluster. Installs the packages first when missing. On any failure the
 * daemons already started are stopped and the folder removed before the error is thrown.
 */
export async function startRgwCluster(options: RgwClusterOptions = {}): Promise<RgwCluster> {
  await ensureCephPackages()
  return startOnFreshPorts(() => startOnce(options))
}

async function startOnce(options: RgwClusterOptions): Promise<RgwCluster> {
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000)
  const dir = await mkdtemp(join(tmpdir(), 'objstore-rgw-'))
  const daemons = await DaemonSet.in(dir, 'rgw-cluster')
  const conf = join(dir, 'ceph.conf')
  const accessKeyId = `OBJSTORE${randomBytes(6).toString('hex').toUpperCase()}`
  const secretAccessKey = randomBytes(20).toString('base64url')

  const ceph = (args: readonly string[], timeoutMs?: number) =>
    runTool('ceph', ['-c', conf, '--connect-timeout', '30', ...args], timeoutMs)
  const radosgwAdmin = (args: readonly string[]) => runTool('radosgw-admin', ['-c', conf, ...args])
  const startDaemon = (name: string, file: string, args: readonly string[]) =>
    daemons.start(name, file, ['-f', '-c', conf, ...args])
  const stillRunning = DaemonSet.running
  const stop = () => daemons.stop()

  try {
    for (const folder of ['run', 'mon', 'osd', 'rgw', 'crash']) {
      await mkdir(join(dir, folder))
    }
    const [monPort, rgwPort] = [await freePort(), await freePort()]
    const fsid = randomUUID()
    await writeFile(
      conf,
      cephConfig(dir, fsid, monPort, rgwPort, options.memstoreBytes ?? 1024 ** 3, options.rgwSettings),
    )

    // Monitor: a monmap naming it, mkfs, start.
    const monmap = join(dir, 'monmap')
    await runTool('monmaptool', [
      '--create',
      '--fsid',
      fsid,
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      monmap,
    ])
    await runTool('ceph-mon', ['-c', conf, '-i', 'a', '--mkfs', '--monmap', monmap])
    const mon = startDaemon('mon.a', 'ceph-mon', ['-i', 'a'])
    // Its admin socket appears once it runs; a monitor that cannot bind its port exits instead.
    await waitForValue(
      'the monitor to start',
      async () => (existsSync(join(dir, 'run', 'mon.a.asok')) ? true : undefined),
      untilDeadline(deadline, stillRunning(mon), 50),
    )

    // OSD: registered with the monitor (waits for it to answer), mkfs, start, wait for up+in.
    const osdUuid = randomUUID()
    const osdId = (await ceph(['osd', 'new', osdUuid])).trim()
    stillRunning(mon)()
    await mkdir(join(dir, 'osd', `ceph-${osdId}`), { recursive: true })
    await runTool('ceph-osd', ['-c', conf, '-i', osdId, '--mkfs', '--osd-uuid', osdUuid])
    const osd = startDaemon(`osd.${osdId}`, 'ceph-osd', ['-i', osdId])
    await waitForValue(
      'the OSD to be up and in',
      async () => {
        const stat = JSON.parse(await ceph(['osd', 'stat', '-f', 'json'], 30_000)) as {
          num_up_osds?: number
          num_in_osds?: number
        }
        return stat.num_up_osds === 1 && stat.num_in_osds === 1 ? true : undefined
      },
      untilDeadline(deadline, stillRunning(mon, osd), 200),
    )

    // The S3 user (this also creates RGW's pools), with the admin API's read caps.
    await createUser(radosgwAdmin, {
      uid: 'objstore-test',
      displayName: 'objstore-exporter tests',
      accessKeyId,
      secretAccessKey,
      maxBuckets: options.maxBuckets ?? 5000,
      caps: RGW_ADMIN_READ_CAPS,
    })

    const rgw = startDaemon('client.rgw', 'radosgw', ['-n', 'client.rgw'])
    const endpoint = `http://127.0.0.1:${rgwPort}`
    await waitForValue(
      'radosgw to answer HTTP',
      async () => {
        const response = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(5000) })
        await response.arrayBuffer()
        return response.status === 200 ? true : undefined
      },
      untilDeadline(deadline, stillRunning(rgw)),
    )
    return {
      endpoint,
      accessKeyId,
      secretAccessKey,
      region: 'us-east-1',
      dir,
      daemonPids: () => daemons.pids(),
      radosgwAdmin,
      createUser: (user) => createUser(radosgwAdmin, user),
      async setBucketQuota(bucket, quota) {
        const limits = [`--max-size=${quota.maxBytes}`]
        if (quota.maxObjects !== undefined) limits.push(`--max-objects=${quota.maxObjects}`)
        await radosgwAdmin(['quota', 'set', `--bucket=${bucket}`, '--quota-scope=bucket', ...limits])
        await radosgwAdmin(['quota', 'enable', `--bucket=${bucket}`, '--quota-scope=bucket'])
      },
      stop,
    }
  } catch (error) {
    const logs = await daemons.logTails()
    await stop()
    throw new Error(`Ceph RGW test cluster did not start: ${String(error)}\n${logs}`, { cause: error })
  }
}
