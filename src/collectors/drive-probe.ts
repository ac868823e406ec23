import { type StatsFs, statfs as statfsCallback } from 'node:fs'

export type StatfsFunction = (path: string) => Promise<StatsFs>

/** Promise-returning statfs that resolves numbers (not bigints). */
export const statfs: StatfsFunction = (path) =>
  new Promise((resolve, reject) => {
    statfsCallback(path, (error, stats) => (error ? reject(error) : resolve(stats)))
  })

export interface DriveCapacity {
  readonly totalBytes: number
  readonly freeBytes: number
  readonly usedBytes: number
  readonly totalInodes: number
  readonly freeInodes: number
  readonly usedInodes: number
}

export type DriveState =
  | { readonly online: true; readonly capacity: DriveCapacity }
  | { readonly online: false; readonly reason: string }

/**
 * statfs with a guard for dead mounts. statfs runs on libuv's small thread pool (4 threads by
 * default) and on a dead network mount it may never return. A drive whose call has not returned
 * is reported offline and not asked again until that call settles, so one stuck drive holds at
 * most one pool thread and never blocks a scrape.
 */
export class DriveProbe {
  readonly #statfs: StatfsFunction
  readonly #pending = new Map<string, number>()

  constructor(statfsFunction: StatfsFunction = statfs) {
    this.#statfs = statfsFunction
  }

  /** Drives with a statfs still outstanding, and since when (ms since epoch). */
  get pending(): ReadonlyMap<string, number> {
    return this.#pending
  }

  async probe(path: string, timeoutMs: number): Promise<DriveState> {
    const since = this.#pending.get(path)
    if (since !== undefined) {
      // Stable text (no running clock in it), so the offline reason is logged once, not per scrape.
      return { online: false, reason: `statfs pending since ${new Date(since).toISOString()} (drive hung?)` }
    }
    this.#pending.set(path, Date.now())
    const call = this.#statfs(path).finally(() => this.#pending.delete(path))
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const stats = await Promise.race([call, timeout])
      if (stats === 'timeout') {
        // The call keeps its pool thread; swallow its eventual outcome, it is reported as offline now.
        call.catch(() => {})
        return { online: false, reason: `statfs did not return within ${timeoutMs} ms` }
      }
      return { online: true, capacity: capacityOf(stats) }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      return { online: false, reason: code ? `statfs failed: ${code}` : `statfs failed: ${String(error)}` }
    } finally {
      clearTimeout(timer)
    }
  }
}

/** Same arithmetic as MinIO and df: used counts blocks reserved for root, free does not. */
export function capacityOf(stats: StatsFs): DriveCapacity {
  const totalBytes = stats.blocks * stats.bsize
  const freeBytes = stats.bavail * stats.bsize
  const usedBytes = (stats.blocks - stats.bfree) * stats.bsize
  return {
    totalBytes,
    freeBytes,
    usedBytes,
    totalInodes: stats.files,
    freeInodes: stats.ffree,
    usedInodes: stats.files - stats.ffree,
  }
}
