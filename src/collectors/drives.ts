import type { Logger } from 'pino'
import { describe, family } from '../metrics/families.js'
import type { MetricSet } from '../metrics/metric-set.js'
import { DriveProbe, type DriveState, type StatfsFunction } from './drive-probe.js'
import type { Collector } from './types.js'

/** Drive and cluster capacity (MinIO v2 names where they are Prometheus', the others as options). */
export const drivesFamilies = describe('drives', {
  node_drive_total_bytes: family(
    'gauge',
    ['drive'],
    'Total bytes of the filesystem holding the drive path (statfs).',
  ),
  node_drive_used_bytes: family(
    'gauge',
    ['drive'],
    'Used bytes of the filesystem holding the drive path: statfs (blocks - bfree) x bsize, what df shows as Used. Use% as df computes it: used / (used + free_bytes).',
  ),
  node_drive_free_bytes: family(
    'gauge',
    ['drive'],
    "Bytes available to unprivileged users on the drive: statfs bavail x bsize, df's Avail (node_exporter's node_filesystem_avail_bytes; its free_bytes is bfree, which counts blocks reserved for root).",
  ),
  node_drive_total_inodes: family(
    'gauge',
    ['drive'],
    'Total inodes of the filesystem holding the drive path.',
  ),
  node_drive_used_inodes: family('gauge', ['drive'], 'Used inodes of the filesystem holding the drive path.'),
  node_drive_free_inodes: family('gauge', ['drive'], 'Free inodes of the filesystem holding the drive path.'),
  node_drive_unaccounted_bytes: family(
    'gauge',
    ['drive'],
    "Used bytes of the filesystem (node_drive_used_bytes) minus the bytes of DATA_DIR's buckets and of its files outside buckets (.minio.sys, lost+found), from the last usage snapshot: what no bucket accounts for (filesystem metadata, block rounding, files elsewhere on it). Not clamped: negative when files take less room than their size (sparse, compressed). BUCKETS_SOURCE=fs with every bucket measured, for the drive whose path is DATA_DIR.",
  ),
  node_drive_online: family(
    'gauge',
    ['drive'],
    'Whether the drive answered statfs in time (1) or not (0); the reason is logged.',
  ),
  node_drive_availability_errors_total: family(
    'counter',
    ['drive'],
    'Probes that found the drive offline (statfs failed or did not return in time) since the exporter started.',
    { minio: 'node_drive_errors_availability' },
  ),
  node_drive_timeout_errors_total: family(
    'counter',
    ['drive'],
    'Probes whose statfs did not return within DRIVE_TIMEOUT_MS since the exporter started.',
    { minio: 'node_drive_errors_timeout' },
  ),
  node_drive_io_waiting: family(
    'gauge',
    ['drive'],
    'statfs calls outstanding on the drive (0 or 1: the drive is asked once at a time).',
  ),
  node_drives_online: family('gauge', [], 'Drives of this exporter online.', {
    minio: 'node_drive_online_total',
  }),
  node_drives_offline: family('gauge', [], 'Drives of this exporter offline.', {
    minio: 'node_drive_offline_total',
  }),
  node_drives: family('gauge', [], 'Drives configured on this exporter (DRIVES).', {
    minio: 'node_drive_total',
  }),
  cluster_drives_online: family('gauge', [], 'Drives online.', { minio: 'cluster_drive_online_total' }),
  cluster_drives_offline: family('gauge', [], 'Drives offline.', { minio: 'cluster_drive_offline_total' }),
  cluster_drives: family('gauge', [], 'Drives configured.', { minio: 'cluster_drive_total' }),
  cluster_capacity_raw_total_bytes: family('gauge', [], 'Sum of the total bytes of online drives.'),
  cluster_capacity_raw_free_bytes: family('gauge', [], 'Sum of the free bytes of online drives.'),
  cluster_capacity_usable_total_bytes: family(
    'gauge',
    [],
    'Raw total bytes times data/(data+parity) drives (EC_PARITY).',
  ),
  cluster_capacity_usable_free_bytes: family(
    'gauge',
    [],
    'Raw free bytes times data/(data+parity) drives (EC_PARITY).',
  ),
})

export interface DrivesCollectorOptions {
  readonly drives: readonly string[]
  readonly timeoutMs: number
  /** Erasure-code parity drives per set; the one set is every configured drive. */
  readonly parity: number
  readonly logger: Logger
  /** Injected only to simulate a hung or failing filesystem. */
  readonly statfs?: StatfsFunction
  /**
   * The drive holding the source's data folder and the bytes its last snapshot accounts for
   * (buckets and files outside them; undefined while unknown): node_drive_unaccounted_bytes.
   */
  readonly reconcile?: { readonly drive: string; readonly accountedBytes: () => number | undefined }
}

/** Capacity of each configured drive path (statfs), and of the cluster they form. */
export function createDrivesCollector(options: DrivesCollectorOptions): Collector<typeof drivesFamilies> & {
  readonly lastStates: ReadonlyMap<string, DriveState>
} {
  const probe = new DriveProbe(options.statfs)
  const lastStates = new Map<string, DriveState>()
  const dataShare = (options.drives.length - options.parity) / options.drives.length

  function logTransition(drive: string, state: DriveState): void {
    const previous = lastStates.get(drive)
    lastStates.set(drive, state)
    const before = previous === undefined ? undefined : previous.online ? 'online' : previous.reason
    const now = state.online ? 'online' : state.reason
    if (before === now) return
    if (state.online) {
      if (previous) options.logger.info({ drive }, 'drive online')
    } else {
      options.logger.warn({ drive, reason: state.reason }, 'drive offline')
    }
  }

  return {
    name: 'drives',
    families: drivesFamilies,
    lastStates,
    async collect(out: MetricSet<typeof drivesFamilies>) {
      const states = await Promise.all(options.drives.map((drive) => probe.probe(drive, options.timeoutMs)))
      let online = 0
      let rawTotal = 0
      let rawFree = 0
      options.drives.forEach((drive, index) => {
        const state = states[index] as DriveState
        logTransition(drive, state)
        out.set('node_drive_online', { drive }, state.online ? 1 : 0)
        const errors = probe.errors(drive)
        out.set('node_drive_availability_errors_total', { drive }, errors.availability)
        out.set('node_drive_timeout_errors_total', { drive }, errors.timeout)
        out.set('node_drive_io_waiting', { drive }, probe.waiting(drive))
        if (!state.online) return
        const { capacity } = state
        online++
        rawTotal += capacity.totalBytes
        rawFree += capacity.freeBytes
        out.set('node_drive_total_bytes', { drive }, capacity.totalBytes)
        out.set('node_drive_used_bytes', { drive }, capacity.usedBytes)
        out.set('node_drive_free_bytes', { drive }, capacity.freeBytes)
        out.set('node_drive_total_inodes', { drive }, capacity.totalInodes)
        out.set('node_drive_used_inodes', { drive }, capacity.usedInodes)
        out.set('node_drive_free_inodes', { drive }, capacity.freeInodes)
        if (options.reconcile?.drive === drive) {
          const accounted = options.reconcile.accountedBytes()
          if (accounted !== undefined) {
            out.set('node_drive_unaccounted_bytes', { drive }, capacity.usedBytes - accounted)
          }
        }
      })
      // One exporter is one MinIO node: its drives are the cluster's.
      out.set('node_drives', {}, options.drives.length)
      out.set('node_drives_online', {}, online)
      out.set('node_drives_offline', {}, options.drives.length - online)
      out.set('cluster_drives', {}, options.drives.length)
      out.set('cluster_drives_online', {}, online)
      out.set('cluster_drives_offline', {}, options.drives.length - online)
      // No drive configured (a remote source without DRIVES): the capacity is unknown, not zero.
      if (options.drives.length === 0) return
      out.set('cluster_capacity_raw_total_bytes', {}, rawTotal)
      out.set('cluster_capacity_raw_free_bytes', {}, rawFree)
      out.set('cluster_capacity_usable_total_bytes', {}, Math.floor(rawTotal * dataShare))
      out.set('cluster_capacity_usable_free_bytes', {}, Math.floor(rawFree * dataShare))
    },
  }
}
