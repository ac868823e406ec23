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
  /** A probe already waited the whole timeout for it (DRIVE_TIMEOUT_MS is one setting). */
  timedOut?: boolean
}

/** What the probes of one drive met since the exporter started (MinIO's drive error counters). */
export interface DriveErrors {
  /** Probes that found the drive offline: statfs failed or did not return in time. */
  readonly availability: number
  /** Of those, the probes whose statfs did not return in time. */
  readonly timeout: number
}

interface DriveHistory {
  availability: number
  timeout: number
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
  readonly #history = new Map<string, DriveHistory>()

  constructor(statfsFunction: StatfsFunction = statfs) {
    this.#statfs = statfsFunction
  }

  /** Drives with a statfs still outstanding, and since when (ms since epoch). */
  get pending(): ReadonlyMap<string, number> {
    return new Map([...this.#pending].map(([path, { sinceMs }]) => [path, sinceMs]))
  }

  /** The drive's probe errors since start. */
  errors(path: string): DriveErrors {
    const { availability, timeout } = this.#historyOf(path)
    return { availability, timeout }
  }

  /** statfs calls outstanding on the drive: 0 or 1 (one at a time). */
  waiting(path: string): number {
    return this.#pending.has(path) ? 1 : 0
  }

  #historyOf(path: string): DriveHistory {
    let history = this.#history.get(path)
    if (history === undefined) {
      history = { availability: 0, timeout: 0 }
      this.#history.set(path, history)
    }
    return history
  }

  /** Counts a probe that found the drive offline. */
  #offline(path: string, timedOut: boolean): void {
    const history = this.#historyOf(path)
    history.availability++
    if (timedOut) history.timeout++
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
    // A timer may fire a millisecond before Date.now says the time is up (libuv schedules from its
    // cached loop time): once one probe timed out, the call is past its timeout for every probe.
    if (remainingMs <= 0 || pending.timedOut) {
      // Stable text (no running clock in it), so the offline reason is logged once, not per scrape.
      this.#offline(path, true)
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
      if (stats === 'timeout') {
        pending.timedOut = true
        this.#offline(path, true)
        return { online: false, reason: `statfs did not return within ${timeoutMs} ms` }
      }
      return { online: true, capacity: capacityOf(stats) }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      this.#offline(path, false)
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
