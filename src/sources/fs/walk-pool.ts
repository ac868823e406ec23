import { setTimeout as sleep } from 'node:timers/promises'
import type { Worker } from 'node:worker_threads'
import { startSiblingWorker } from '../../worker-threads.js'
import type { WalkResult, WalkTask } from './walk.js'
import type { WalkReply, WalkRequest } from './walk-worker.js'

/** A walk task failed in the worker: `code` is the errno code (ENOENT, EACCES, ...). */
export class WalkError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message)
    this.name = 'WalkError'
  }
}

/**
 * Walk threads told to stop that have not ended: stopping a thread waits for the system call it is
 * in, and on a hung network filesystem that call never returns (the thread is stuck in the kernel,
 * and nothing short of killing the process frees it). Each is kept here, with the `owner` its task
 * ran for, until it ends by itself; process-wide, since pools come and go with scans.
 */
const abandoned = new Map<Worker, { readonly owner: string; readonly sinceMs: number }>()

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
 * Waits up to `timeoutMs` for stopped walk threads to end (one stopped in JavaScript ends within
 * milliseconds, one stuck in the kernel does not); resolves with how many are left.
 */
export async function settleStuckWalks(timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs
  while (abandoned.size > 0 && performance.now() < deadline) await sleep(20)
  return abandoned.size
}

interface Job {
  readonly request: WalkRequest
  /** What the task is part of (a bucket), named when its thread gets stuck. */
  readonly owner: string
  readonly signal: AbortSignal
  readonly resolve: (result: WalkResult) => void
  readonly reject: (error: unknown) => void
  readonly onAbort: () => void
}

interface Slot {
  readonly worker: Worker
  /** Posted to the thread and not answered yet, in order: the first is the one running. */
  readonly jobs: Job[]
}

/**
 * Tasks posted to a thread at once: the next waits in the thread's port while one runs, so the
 * thread goes on at once instead of idling until this thread has read its answer and posted again
 * (a wait of milliseconds per task when the cores are busy). Only a task of the same owner (bucket)
 * waits behind another: one that hangs in the filesystem holds up its own bucket, no other.
 */
const POSTED_PER_THREAD = 2

/**
 * Up to `size` worker threads running fs walk tasks, created on demand and ended by close(). A
 * synchronous walk cannot be interrupted, so aborting a running task terminates its thread (a new
 * one is started for the next task). A thread stuck in a system call ends only when the call
 * returns: it is abandoned, counted until then (stuckWalkFor()), and the pool goes on without it.
 */
export class WalkPool {
  readonly size: number
  readonly #queue: Job[] = []
  readonly #slots = new Set<Slot>()
  readonly #onWalker: ((walker: string) => void) | undefined
  #nextId = 0
  #closed = false

  /** `onWalker`: told, with each answer, which walk its thread ran ("native" or "JavaScript (<why>)"). */
  constructor(size: number, onWalker?: (walker: string) => void) {
    this.size = Math.max(1, size)
    this.#onWalker = onWalker
  }

  run(task: WalkTask, signal: AbortSignal, owner = ''): Promise<WalkResult> {
    if (this.#closed) return Promise.reject(new Error('walk pool closed'))
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise<WalkResult>((resolve, reject) => {
      const job: Job = {
        request: { ...task, id: this.#nextId++ },
        owner,
        signal,
        resolve,
        reject,
        onAbort: () => this.#abort(job),
      }
      signal.addEventListener('abort', job.onAbort, { once: true })
      this.#queue.push(job)
      this.#dispatch()
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const job of this.#queue.splice(0)) this.#settle(job, new Error('walk pool closed'))
    await Promise.all(
      [...this.#slots].map((slot) => {
        this.#slots.delete(slot)
        const [job, ...posted] = slot.jobs
        if (!job) return slot.worker.terminate()
        // A busy thread may be stuck in a system call: stopped, not waited for.
        for (const waiting of [job, ...posted]) this.#settle(waiting, new Error('walk pool closed'))
        this.#abandon(slot, job)
        return undefined
      }),
    )
  }

  /** Terminates the busy thread of `slot` (running `job`), counted as stuck until it has ended. */
  #abandon(slot: Slot, job: Job): void {
    slot.jobs.length = 0
    // Until its 'exit': a thread in JavaScript ends at once, one in a system call when it returns.
    abandoned.set(slot.worker, { owner: job.owner, sinceMs: Date.now() })
    slot.worker.once('exit', () => abandoned.delete(slot.worker))
    void slot.worker.terminate()
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#freeSlot((this.#queue[0] as Job).owner)
      if (!slot) return
      const job = this.#queue.shift() as Job
      slot.jobs.push(job)
      slot.worker.postMessage(job.request)
    }
  }

  /** An idle thread, else a new one while there are fewer than `size`, else one busy for `owner` with room. */
  #freeSlot(owner: string): Slot | undefined {
    for (const slot of this.#slots) if (slot.jobs.length === 0) return slot
    if (this.#slots.size < this.size) return this.#startSlot()
    for (const slot of this.#slots) {
      if (slot.jobs.length < POSTED_PER_THREAD && slot.jobs.every((job) => job.owner === owner)) return slot
    }
    return undefined
  }

  #startSlot(): Slot {
    const slot: Slot = { worker: startWalkWorker(), jobs: [] }
    slot.worker.unref()
    slot.worker.on('message', (reply: WalkReply) => {
      const job = slot.jobs[0]
      if (!job || job.request.id !== reply.id) return
      slot.jobs.shift()
      this.#onWalker?.(reply.walker)
      if (reply.ok) this.#settle(job, undefined, reply.result)
      else this.#settle(job, new WalkError(reply.message, reply.code))
      this.#dispatch()
    })
    slot.worker.on('error', (error) => this.#lose(slot, error))
    slot.worker.on('exit', (code) => this.#lose(slot, new Error(`walk worker exited with code ${code}`)))
    this.#slots.add(slot)
    return slot
  }

  /** A worker died: its tasks fail, and the next task gets a fresh worker. */
  #lose(slot: Slot, error: unknown): void {
    if (!this.#slots.delete(slot)) return
    for (const job of slot.jobs.splice(0)) this.#settle(job, error)
    if (!this.#closed) this.#dispatch()
  }

  #abort(job: Job): void {
    const queued = this.#queue.indexOf(job)
    if (queued >= 0) this.#queue.splice(queued, 1)
    for (const slot of this.#slots) {
      const at = slot.jobs.indexOf(job)
      if (at < 0) continue
      // The thread runs the first of its tasks: it is stopped, and its other tasks go back to the
      // front of the queue for another thread (a walk only reads, so it may start over anywhere).
      const others = slot.jobs.filter((other) => other !== job)
      this.#slots.delete(slot)
      this.#abandon(slot, slot.jobs[0] as Job)
      this.#queue.unshift(...others)
    }
    this.#settle(job, job.signal.reason)
    this.#dispatch()
  }

  #settle(job: Job, error: unknown, result?: WalkResult): void {
    job.signal.removeEventListener('abort', job.onAbort)
    if (error === undefined) job.resolve(result as WalkResult)
    else job.reject(error)
  }
}

/**
 * A walk worker, from this module's sibling file (compiled or, under tsx, TypeScript). A walk
 * makes short-lived directory entries by the million: a young generation of 8 MB (V8's default
 * grows to 32) collects them as well and keeps the thread's memory small.
 */
function startWalkWorker(): Worker {
  return startSiblingWorker(import.meta.url, 'walk-worker', {
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  })
}
