/**
 * A throwaway OpenStack Swift (Debian 12's 2.30) with its S3 layer, s3api, on loopback: a third
 * real S3 implementation beside s3rver and Ceph RGW. One device, one replica, rings built at
 * start; memcached (tempauth keeps its tokens there), then the account, container, object and
 * proxy servers, each one process (workers = 0). Everything lives in one temporary folder, which
 * stop() removes; daemons.ts starts the daemons in their own process groups and ends them.
 * Facts behind each setting: shared/reference/test-servers.md, "OpenStack Swift 2.30 with s3api".
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3'
import {
  DaemonSet,
  type DebianServer,
  ensureDebianPackages,
  runTool,
  serverSkipReason,
  startOnFreshPorts,
  untilDeadline,
} from './daemons.js'
import { freePort } from './process.js'
import { waitForValue } from './wait-for.js'

export const SWIFT_SERVER: DebianServer = {
  name: 'OpenStack Swift',
  packages: [
    'swift',
    'swift-proxy',
    'swift-account',
    'swift-container',
    'swift-object',
    'python3-swift',
    'memcached',
  ],
  binaries: [
    'swift-ring-builder',
    'swift-account-server',
    'swift-container-server',
    'swift-object-server',
    'swift-proxy-server',
    'memcached',
  ],
}

/** Why a Swift suite is skipped (packages missing, not root to install them); throws under CI. */
export function swiftSkipReason(): string | false {
  return serverSkipReason(SWIFT_SERVER)
}

export interface SwiftCluster {
  /** `http://127.0.0.1:PORT`: the proxy, S3 path-style (s3api) and Swift's own API. */
  readonly endpoint: string
  /** tempauth's `account:user`, which s3api takes as the access key. */
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** s3api's default location; it signs with any region. */
  readonly region: string
  /** The temporary folder holding the cluster (removed by stop). */
  readonly dir: string
  /** Pids of the daemons still running (memcached, account, container, object, proxy). */
  daemonPids(): number[]
  /**
   * The account's containers through Swift's own API (tempauth token), hidden ones included:
   * what s3api's ListBuckets leaves out (`<bucket>+segments`, where multipart parts live).
   */
  containers(): Promise<SwiftContainer[]>
  /** Stops every daemon's process group (reverse start order) and removes the folder. Idempotent. */
  stop(): Promise<void>
}

export interface SwiftContainer {
  readonly name: string
  readonly count: number
  readonly bytes: number
}

export interface SwiftClusterOptions {
  /** Overall bound on start-up, install excluded (default 120 s). */
  readonly startTimeoutMs?: number
}

const SERVERS = ['account', 'container', 'object'] as const

/** The part of every server's config that keeps it in `dir`, on loopback, in one process. */
function commonSettings(dir: string, port: number, name: string): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
# Swift drops privileges to this user; the one running the tests.
user = ${userInfo().username}
swift_dir = ${dir}
devices = ${dir}/devices
mount_check = false
workers = 0
log_name = ${name}
`
}

function backendConfig(dir: string, server: (typeof SERVERS)[number], port: number): string {
  return `${commonSettings(dir, port, server)}
[pipeline:main]
pipeline = ${server}-server

[app:${server}-server]
use = egg:swift#${server}
`
}

function proxyConfig(dir: string, port: number, memcachedPort: number, secret: string): string {
  return `${commonSettings(dir, port, 'proxy')}
[pipeline:main]
pipeline = catch_errors proxy-logging cache s3api tempauth bulk slo dlo versioned_writes symlink proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_object_versioning = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachedPort}

[filter:s3api]
use = egg:swift#s3api

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${secret} .admin

[filter:bulk]
use = egg:swift#bulk

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo

[filter:versioned_writes]
use = egg:swift#versioned_writes
allow_object_versioning = true

[filter:symlink]
use = egg:swift#symlink
`
}

/**
 * Builds and starts the cluster. Installs the packages first when missing (root). On any failure
 * the daemons already started are stopped and the folder removed before the error is thrown.
 */
export async function startSwiftCluster(options: SwiftClusterOptions = {}): Promise<SwiftCluster> {
  await ensureDebianPackages(SWIFT_SERVER)
  return startOnFreshPorts(() => startOnce(options))
}

async function startOnce(options: SwiftClusterOptions): Promise<SwiftCluster> {
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000)
  const dir = await mkdtemp(join(tmpdir(), 'objstore-swift-'))
  const daemons = await DaemonSet.in(dir, 'swift-cluster')
  const secretAccessKey = randomBytes(20).toString('base64url')
  try {
    await mkdir(join(dir, 'devices', 'd1'), { recursive: true })
    // A random hash prefix and suffix: nothing here is ever read by another cluster.
    await writeFile(
      join(dir, 'swift.conf'),
      `[swift-hash]\nswift_hash_path_prefix = ${randomBytes(8).toString('hex')}\nswift_hash_path_suffix = ${randomBytes(8).toString('hex')}\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n`,
    )
    const ports = { memcached: 0, account: 0, container: 0, object: 0, proxy: 0 }
    for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort()

    // One ring a server kind: 2^6 partitions, one replica, one device.
    for (const server of SERVERS) {
      const builder = join(dir, `${server}.builder`)
      await runTool('swift-ring-builder', [builder, 'create', '6', '1', '1'])
      await runTool('swift-ring-builder', [builder, 'add', `r1z1-127.0.0.1:${ports[server]}/d1`, '1'])
      await runTool('swift-ring-builder', [builder, 'rebalance'])
      await writeFile(join(dir, `${server}-server.conf`), backendConfig(dir, server, ports[server]))
    }
    await writeFile(
      join(dir, 'proxy-server.conf'),
      proxyConfig(dir, ports.proxy, ports.memcached, secretAccessKey),
    )

    const asRoot = process.getuid?.() === 0 ? ['-u', 'root'] : []
    const started = [
      daemons.start('memcached', 'memcached', [
        ...asRoot,
        '-l',
        '127.0.0.1',
        '-p',
        String(ports.memcached),
        '-U',
        '0',
      ]),
    ]
    for (const server of [...SERVERS, 'proxy'] as const) {
      started.push(
        daemons.start(server, `swift-${server}-server`, [join(dir, `${server}-server.conf`), '-v']),
      )
    }

    // Each back-end answers HTTP (any status: they have no health path here); then the proxy
    // answers a signed S3 request, which needs memcached (tempauth) and all three back-ends.
    const alive = DaemonSet.running(...started)
    for (const server of SERVERS) {
      await waitForValue(
        `the ${server} server to answer HTTP`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${ports[server]}/`, {
            signal: AbortSignal.timeout(5000),
          })
          await response.arrayBuffer()
          return true
        },
        untilDeadline(deadline, alive),
      )
    }
    const endpoint = `http://127.0.0.1:${ports.proxy}`
    const cluster = { endpoint, accessKeyId: 'test:tester', secretAccessKey, region: 'us-east-1' }
    const s3 = new S3Client({
      endpoint,
      region: cluster.region,
      forcePathStyle: true,
      credentials: { accessKeyId: cluster.accessKeyId, secretAccessKey },
      maxAttempts: 1,
    })
    try {
      await waitForValue(
        'the proxy to answer S3 ListBuckets',
        async () => {
          await s3.send(new ListBucketsCommand({}), { abortSignal: AbortSignal.timeout(5000) })
          return true
        },
        untilDeadline(deadline, alive),
      )
    } finally {
      s3.destroy()
    }
    return {
      ...cluster,
      dir,
      daemonPids: () => daemons.pids(),
      containers: () => listContainers(endpoint, cluster.accessKeyId, secretAccessKey),
      stop: () => daemons.stop(),
    }
  } catch (error) {
    const logs = await daemons.logTails()
    await daemons.stop()
    throw new Error(`OpenStack Swift test cluster did not start: ${String(error)}\n${logs}`, { cause: error })
  }
}

/** GET /auth/v1.0 for a token, then the account listing as JSON. */
async function listContainers(endpoint: string, user: string, key: string): Promise<SwiftContainer[]> {
  const auth = await fetch(`${endpoint}/auth/v1.0`, {
    headers: { 'X-Auth-User': user, 'X-Auth-Key': key },
    signal: AbortSignal.timeout(10_000),
  })
  await auth.arrayBuffer()
  const token = auth.headers.get('x-auth-token')
  const storageUrl = auth.headers.get('x-storage-url')
  if (!auth.ok || !token || !storageUrl) throw new Error(`tempauth answered ${auth.status}`)
  const listing = await fetch(`${storageUrl}?format=json`, {
    headers: { 'X-Auth-Token': token },
    signal: AbortSignal.timeout(10_000),
  })
  if (!listing.ok) throw new Error(`the account listing answered ${listing.status}`)
  if (listing.status === 204) return [] // no container yet
  // The account listing's figures wait for Swift's container updater, which is not run here: each
  // container's own HEAD has them at once.
  const names = ((await listing.json()) as { name: string }[]).map((container) => container.name)
  const containers: SwiftContainer[] = []
  for (const name of names) {
    const head = await fetch(`${storageUrl}/${encodeURIComponent(name)}`, {
      method: 'HEAD',
      headers: { 'X-Auth-Token': token },
      signal: AbortSignal.timeout(10_000),
    })
    if (!head.ok) throw new Error(`HEAD of container ${name} answered ${head.status}`)
    containers.push({
      name,
      count: Number(head.headers.get('x-container-object-count')),
      bytes: Number(head.headers.get('x-container-bytes-used')),
    })
  }
  return containers
}
