import type { Logger } from 'pino'
import type { MetricSet } from '../metrics/metric-set.js'
import { DriveProbe, type DriveState, type StatfsFunction } from './drive-probe.js'
import type { Collector } from './types.js'

export interface DrivesCollectorOptions {
  readonly drives: readonly string[]
  readonly timeoutMs: number
  /** Erasure-code parity drives per set; the one set is every configured drive. */
  readonly parity: number
  readonly logger: Logger
  /** Injected only to simulate a hung or failing filesystem. */
  readonly statfs?: StatfsFunction
}

/** Capacity of each configured drive path (statfs), and of the cluster they form. */
export function createDrivesCollector(options: DrivesCollectorOptions): Collector & {
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
    lastStates,
    async collect(out: MetricSet) {
      const states = await Promise.all(options.drives.map((drive) => probe.probe(drive, options.timeoutMs)))
      let online = 0
      let rawTotal = 0
      let rawFree = 0
      options.drives.forEach((drive, index) => {
        const state = states[index] as DriveState
        logTransition(drive, state)
        out.set('nodeDriveOnline', { drive }, state.online ? 1 : 0)
        if (!state.online) return
        const { capacity } = state
        online++
        rawTotal += capacity.totalBytes
        rawFree += capacity.freeBytes
        out.set('nodeDriveTotalBytes', { drive }, capacity.totalBytes)
        out.set('nodeDriveUsedBytes', { drive }, capacity.usedBytes)
        out.set('nodeDriveFreeBytes', { drive }, capacity.freeBytes)
        out.set('nodeDriveTotalInodes', { drive }, capacity.totalInodes)
        out.set('nodeDriveUsedInodes', { drive }, capacity.usedInodes)
        out.set('nodeDriveFreeInodes', { drive }, capacity.freeInodes)
      })
      out.set('clusterDriveTotal', {}, options.drives.length)
      out.set('clusterDriveOnlineTotal', {}, online)
      out.set('clusterDriveOfflineTotal', {}, options.drives.length - online)
      out.set('clusterCapacityRawTotalBytes', {}, rawTotal)
      out.set('clusterCapacityRawFreeBytes', {}, rawFree)
      out.set('clusterCapacityUsableTotalBytes', {}, Math.floor(rawTotal * dataShare))
      out.set('clusterCapacityUsableFreeBytes', {}, Math.floor(rawFree * dataShare))
    },
  }
}
