/**
 * Walk threads stopped or asked to end, process-wide (walk-pool.ts marks them): which are stuck in
 * the filesystem, whether a walk may start, and waiting for them at shutdown.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Worker } from 'node:worker_threads'

/**
 * Walk threads told to stop that have not answered: a thread sees the request only when the system
 * call it is in returns, and on a hung network filesystem that call never does (the thread is stuck
 * in the kernel, and nothing short of killing the process frees it). Each is kept here, with the `owner` its task
 * ran for, until it answers; process-wide, as MAX_STUCK_WALKS is.
 */
const abandoned = new Map<
  Worker,
  {
    readonly owner: string
    readonly sinceMs: number
    /** Whether it is inside a task (else still starting, or between tasks: it answers soon). */
    readonly inTask: () => boolean
  }
>()

/** Threads asked to end that have not yet, process-wide: settleStuckWalks() waits for them. */
const ending = new Set<Worker>()

/** How long settleStuckWalks() waits, beyond its bound, for threads that are in no task (starting). */
const STARTING_THREAD_MS = 10_000

/**
 * At most this many walk threads may be stuck at once: with more, no walk starts until one
 * returns, since each scan that met the hung folders again would leave more threads (about 9 MB
 * each) behind, without bound.
 */
export const MAX_STUCK_WALKS = 8

/** Why a walk for `owner` must not start now (one of its walks, or too many, stuck); undefined if it may. */
export function stuckWalkFor(owner: string): string | undefined {
  for (const stuck of abandoned.values()) {
    if (stuck.owner !== owner) continue
    const since = new Date(stuck.sinceMs).toISOString()
    return `a walk of it stopped at ${since} has not returned from the filesystem yet (a hung mount?)`
  }
  if (abandoned.size >= MAX_STUCK_WALKS) {
    return `${abandoned.size} walk threads are stuck in the filesystem (a hung mount?); no walk starts until one returns`
  }
  return undefined
}

/** Walk threads stopped and not ended yet, in the whole process. */
export function stuckWalks(): number {
  return abandoned.size
}

/**
 * Waits for stopped and closed walk threads to end: up to `timeoutMs` for one inside a task (one
 * stopped in JavaScript ends within milliseconds, one stuck in the kernel does not), longer for
 * one still starting (under load a thread takes a second or more to load its code, then reads its
 * stop at once). Resolves with how many stopped threads are left inside a task (stuck).
 */
export async function settleStuckWalks(timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs
  const lastChance = deadline + STARTING_THREAD_MS
  for (;;) {
    if (abandoned.size === 0 && ending.size === 0) return 0
    const inTask = [...abandoned.values()].filter((stuck) => stuck.inTask()).length
    const now = performance.now()
    if (inTask > 0 && now >= deadline) return inTask
    if (now >= lastChance) return abandoned.size
    await sleep(20)
  }
}

/** `worker` was told to stop its task for `owner`: stuck until it answers (answered()). */
export function stopped(worker: Worker, owner: string, inTask: () => boolean): void {
  abandoned.set(worker, { owner, sinceMs: Date.now(), inTask })
}

/** `worker` answered the task it was stopped in: back from the filesystem. */
export function answered(worker: Worker): void {
  abandoned.delete(worker)
}

/** `worker` was asked to end; until ended(), settleStuckWalks() waits for it. */
export function askedToEnd(worker: Worker): void {
  ending.add(worker)
}

/** `worker` has ended. */
export function ended(worker: Worker): void {
  abandoned.delete(worker)
  ending.delete(worker)
}
