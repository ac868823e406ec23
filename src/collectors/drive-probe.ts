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

/** A statfs call still outstanding: when it started, and its outcome for every caller. */
interface PendingCall {
  readonly sinceMs: number
  readonly call: Promise<StatsFs>
}

/**
 * statfs with a guard for dead mounts. statfs runs on libuv's small thread pool (4 threads by
 * default) and on a dead network mount it may never return. One call per drive is outstanding at
 * a time: every probe that finds it pending awaits that same call, up to `timeoutMs` counted from
 * when the call started. A call older than that makes the drive offline, and the drive is not
 * asked again until that call settles, so one stuck drive holds at most one pool thread and never
 * blocks a scrape.
 */
export class DriveProbe {
  readonly #statfs: StatfsFunction
  readonly #pending = new Map<string, PendingCall>()

  constructor(statfsFunction: StatfsFunction = statfs) {
    this.#statfs = statfsFunction
  }

  /** Drives with a statfs still outstanding, and since when (ms since epoch). */
  get pending(): ReadonlyMap<string, number> {
    return new Map([...this.#pending].map(([path, { sinceMs }]) => [path, sinceMs]))
  }

  async probe(path: string, timeoutMs: number): Promise<DriveState> {
    let pending = this.#pending.get(path)
    if (pending === undefined) {
      const call = this.#statfs(path).finally(() => this.#pending.delete(path))
      // Whoever awaits it handles its outcome; a call every caller gave up on must not go unhandled.
      call.catch(() => {})
      pending = { sinceMs: Date.now(), call }
      this.#pending.set(path, pending)
    }
    const remainingMs = pending.sinceMs + timeoutMs - Date.now()
    if (remainingMs <= 0) {
      // Stable text (no running clock in it), so the offline reason is logged once, not per scrape.
      return {
        online: false,
        reason: `statfs pending since ${new Date(pending.sinceMs).toISOString()} (drive hung?)`,
      }
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), remainingMs)
    })
    try {
      const stats = await Promise.race([pending.call, timeout])
      // The call keeps its pool thread; it is reported as offline now.
      if (stats === 'timeout')
        return { online: false, reason: `statfs did not return within ${timeoutMs} ms` }
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
