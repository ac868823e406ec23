/**
 * A throwaway single-node Ceph cluster (1 monitor, 1 memstore OSD, radosgw) on loopback, for tests
 * that need a production S3 server: versioning, delete markers, ListMultipartUploads and the RGW
 * admin API. Everything lives in one temporary folder (config, mon/osd data, sockets, logs) and is
 * removed by stop(). Facts behind each setting: shared/reference/test-servers.md, "Ceph RGW".
 *
 * Clean-up is layered so a failing or killed test leaves nothing behind: stop() (call it from
 * t.after / after), a process 'exit' handler that SIGKILLs the daemons, and a small watchdog shell
 * that kills them and removes the folder when the test process disappears without either.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from './process.js'

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

const INSTALL_TIMEOUT_MS = 15 * 60_000
const COMMAND_TIMEOUT_MS = 120_000
const STOP_GRACE_MS = 10_000

function onPath(binary: string): boolean {
  for (const folder of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    try {
      accessSync(join(folder, binary), constants.X_OK)
      return true
    } catch {}
  }
  return false
}

function run(
  file: string,
  args: readonly string[],
  timeoutMs = COMMAND_TIMEOUT_MS,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-2000)}`))
        } else {
          resolve(stdout)
        }
      },
    )
  })
}

/** Installs Debian's Ceph packages when a binary is missing (root only; apt-get update first). */
export async function ensureCephPackages(): Promise<void> {
  const missing = CEPH_BINARIES.filter((binary) => !onPath(binary))
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Ceph binaries missing (${missing.join(', ')}); install as root: apt-get install --no-install-recommends ${CEPH_PACKAGES.join(' ')}`,
    )
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Another process may hold the dpkg lock (a parallel install): wait for it, bounded.
  const lock = ['-o', 'DPkg::Lock::Timeout=300']
  await run('apt-get', [...lock, 'update', '-qq'], INSTALL_TIMEOUT_MS, env)
  await run(
    'apt-get',
    [...lock, 'install', '-y', '-qq', '--no-install-recommends', ...CEPH_PACKAGES],
    INSTALL_TIMEOUT_MS,
    env,
  )
  const still = CEPH_BINARIES.filter((binary) => !onPath(binary))
  if (still.length > 0) throw new Error(`Ceph binaries still missing after install: ${still.join(', ')}`)
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
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

interface Daemon {
  readonly name: string
  readonly child: ChildProcess
  exited: boolean
}

/** Clusters still running in this process, killed synchronously if the process exits. */
const live = new Set<{ daemons: Daemon[]; dir: string }>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const cluster of live) {
      for (const daemon of [...cluster.daemons].reverse()) {
        if (!daemon.exited && daemon.child.pid) {
          try {
            process.kill(daemon.child.pid, 'SIGKILL')
          } catch {}
        }
      }
      rmSync(cluster.dir, { recursive: true, force: true })
    }
  })
}

/**
 * The last line of defence: a shell that outlives a test process killed with SIGKILL, kills the
 * daemons whose pids are listed in DIR/pids and removes DIR. It polls once a second and ends as
 * soon as it has cleaned up; stop() ends it by pid.
 */
function startWatchdog(dir: string): ChildProcess {
  const script = `
while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done
if [ -d "$2" ]; then
  for f in "$2"/pids/*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  sleep 1
  rm -rf "$2"
fi`
  const watchdog = spawn('sh', ['-c', script, 'rgw-cluster-watchdog', String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  })
  watchdog.unref()
  return watchdog
}

async function waitFor<T>(
  what: string,
  deadline: number,
  probe: () => Promise<T | undefined>,
  alive: () => void,
  intervalMs = 100,
): Promise<T> {
  let lastError: unknown
  while (Date.now() < deadline) {
    alive()
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      lastError = error
    }
    await sleep(intervalMs)
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`)
}

/**
 * Builds and starts the cluster. Installs the packages first when missing. On any failure the
 * daemons already started are stopped and the folder removed before the error is thrown.
 */
export async function startRgwCluster(options: RgwClusterOptions = {}): Promise<RgwCluster> {
  await ensureCephPackages()
  try {
    return await startOnce(options)
  } catch (error) {
    // The free ports are picked before the daemons bind them; another process may take one in
    // between, and the daemon exits. One more try on fresh ports.
    if (!(error instanceof Error && error.cause instanceof DaemonExited)) throw error
    return await startOnce(options)
  }
}

async function startOnce(options: RgwClusterOptions): Promise<RgwCluster> {
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000)
  const dir = await mkdtemp(join(tmpdir(), 'objstore-rgw-'))
  const daemons: Daemon[] = []
  const entry = { daemons, dir }
  live.add(entry)
  installExitHook()
  const watchdog = startWatchdog(dir)
  const conf = join(dir, 'ceph.conf')
  const accessKeyId = `OBJSTORE${randomBytes(6).toString('hex').toUpperCase()}`
  const secretAccessKey = randomBytes(20).toString('base64url')

  const ceph = (args: readonly string[], timeoutMs?: number) =>
    run('ceph', ['-c', conf, '--connect-timeout', '30', ...args], timeoutMs)
  const radosgwAdmin = (args: readonly string[]) => run('radosgw-admin', ['-c', conf, ...args])

  const startDaemon = (name: string, file: string, args: readonly string[]): Daemon => {
    const output = openSync(join(dir, 'log', `${name}.out`), 'a')
    const child = spawn(file, ['-f', '-c', conf, ...args], { stdio: ['ignore', output, output] })
    closeSync(output)
    const daemon: Daemon = { name, child, exited: false }
    const pidFile = join(dir, 'pids', name)
    if (child.pid) writeFileSync(pidFile, String(child.pid))
    child.once('exit', () => {
      daemon.exited = true
      try {
        unlinkSync(pidFile)
      } catch {}
    })
    child.once('error', () => {
      daemon.exited = true
    })
    // A forgotten stop() must not hold the test process open; the exit hook still kills it.
    child.unref()
    daemons.push(daemon)
    return daemon
  }

  const stillRunning = (daemon: Daemon) => () => {
    if (daemon.exited) throw new DaemonExited(daemon)
  }

  let stopped: Promise<void> | undefined
  const stop = () => {
    stopped ??= (async () => {
      for (const daemon of [...daemons].reverse()) await stopDaemon(daemon)
      live.delete(entry)
      if (watchdog.pid) {
        try {
          process.kill(watchdog.pid, 'SIGKILL')
        } catch {}
      }
      await rm(dir, { recursive: true, force: true })
    })()
    return stopped
  }

  try {
    for (const folder of ['run', 'log', 'mon', 'osd', 'rgw', 'crash', 'pids']) {
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
    await run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, monmap])
    await run('ceph-mon', ['-c', conf, '-i', 'a', '--mkfs', '--monmap', monmap])
    const mon = startDaemon('mon.a', 'ceph-mon', ['-i', 'a'])
    // Its admin socket appears once it runs; a monitor that cannot bind its port exits instead.
    await waitFor(
      'the monitor to start',
      deadline,
      async () => (existsSync(join(dir, 'run', 'mon.a.asok')) ? true : undefined),
      stillRunning(mon),
      50,
    )

    // OSD: registered with the monitor (waits for it to answer), mkfs, start, wait for up+in.
    const osdUuid = randomUUID()
    const osdId = (await ceph(['osd', 'new', osdUuid])).trim()
    stillRunning(mon)()
    await mkdir(join(dir, 'osd', `ceph-${osdId}`), { recursive: true })
    await run('ceph-osd', ['-c', conf, '-i', osdId, '--mkfs', '--osd-uuid', osdUuid])
    const osd = startDaemon(`osd.${osdId}`, 'ceph-osd', ['-i', osdId])
    await waitFor(
      'the OSD to be up and in',
      deadline,
      async () => {
        const stat = JSON.parse(await ceph(['osd', 'stat', '-f', 'json'], 30_000)) as {
          num_up_osds?: number
          num_in_osds?: number
        }
        return stat.num_up_osds === 1 && stat.num_in_osds === 1 ? true : undefined
      },
      () => {
        stillRunning(mon)()
        stillRunning(osd)()
      },
      200,
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
    await waitFor(
      'radosgw to answer HTTP',
      deadline,
      async () => {
        const response = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(5000) })
        await response.arrayBuffer()
        return response.status === 200 ? true : undefined
      },
      stillRunning(rgw),
    )
    return {
      endpoint,
      accessKeyId,
      secretAccessKey,
      region: 'us-east-1',
      dir,
      daemonPids: () => daemons.filter((d) => !d.exited && d.child.pid).map((d) => d.child.pid as number),
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
    const logs = await logTails(dir)
    await stop()
    throw new Error(`Ceph RGW test cluster did not start: ${String(error)}\n${logs}`, { cause: error })
  }
}

/** The last lines of every daemon log, for a start-up failure message (the folder is removed). */
async function logTails(dir: string, lines = 15): Promise<string> {
  let names: string[] = []
  try {
    names = await readdir(join(dir, 'log'))
  } catch {
    return ''
  }
  const parts: string[] = []
  for (const name of names.sort()) {
    const text = await readFile(join(dir, 'log', name), 'utf8').catch(() => '')
    if (text.trim()) parts.push(`--- ${name}\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`)
  }
  return parts.join('\n')
}

class DaemonExited extends Error {
  constructor(daemon: Daemon) {
    super(`${daemon.name} exited during start-up (code ${daemon.child.exitCode})`)
    this.name = 'DaemonExited'
  }
}

async function stopDaemon(daemon: Daemon): Promise<void> {
  if (daemon.exited || !daemon.child.pid) return
  const exited = new Promise<void>((resolve) => {
    if (daemon.exited) resolve()
    daemon.child.once('exit', () => resolve())
  })
  const within = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms)
      void exited.then(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  try {
    daemon.child.kill('SIGTERM')
  } catch {}
  if (await within(STOP_GRACE_MS)) return
  try {
    daemon.child.kill('SIGKILL')
  } catch {}
  await within(STOP_GRACE_MS)
}
