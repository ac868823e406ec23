import { once } from 'node:events'
import type { Worker } from 'node:worker_threads'
import { startSiblingWorker } from '../../worker-threads.js'
import { answered, askedToEnd, ended, stopped } from './stuck-walks.js'
import { FILES_PER_PROGRESS, type WalkResult, type WalkTask } from './walk.js'
import type { WalkMessage, WalkProgress, WalkReply, WalkRequest, WalkWorkerData } from './walk-worker.js'

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

interface Job {
  readonly request: WalkRequest
  /** What the task is part of (a bucket), named when its thread gets stuck. */
  readonly owner: string
  readonly signal: AbortSignal
  readonly resolve: (result: WalkResult) => void
  readonly reject: (error: unknown) => void
  readonly onAbort: () => void
  /** Told what the task folded since it was last told (deltas): its running counts, then the rest. */
  readonly progress: ((objects: number, bytes: number) => void) | undefined
  /** What `progress` was told so far. */
  readonly told: { objects: number; bytes: number }
}

interface Slot {
  readonly worker: Worker
  /** Ids posted to the thread and not answered yet, in order: the first is the one running. */
  readonly posted: number[]
  /** The tasks of those ids still waited for (a stopped one is answered, but nobody waits). */
  readonly jobs: Map<number, Job>
  /** Shared with the thread: ids of posted tasks it must stop, or skip (walk-worker.ts). */
  readonly stops: Int32Array
  /** Shared with the thread: the id of the task it is running, 0 between tasks. */
  readonly running: Int32Array
}

/**
 * Tasks posted to a thread at once: the next waits in the thread's port while one runs, so the
 * thread goes on at once instead of idling until this thread has read its answer and posted again
 * (a wait of milliseconds per task when the cores are busy). Only a task of the same owner (bucket)
 * waits behind another: one that hangs in the filesystem holds up its own bucket, no other.
 */
const POSTED_PER_THREAD = 2

/**
 * Up to `size` worker threads running fs walk tasks, created on demand and kept: one pool lives as
 * long as its source, across scan rounds, and close() asks its threads to end, which they do by
 * themselves. A thread is never terminated: starting and terminating threads every round aborted
 * the process now and then (a V8 background job meeting a disposed isolate; docs/faults.md). A
 * task is stopped through memory shared with its thread, which checks it between folders and
 * every few thousand files; a thread stuck in a system call sees it only when the call returns:
 * until then it is counted as stuck (stuckWalkFor()) and the pool goes on without it. Once it has
 * answered, it rejoins the pool, or ends if the pool is full or closed.
 */
export class WalkPool {
  readonly size: number
  readonly #queue: Job[] = []
  readonly #slots = new Set<Slot>()
  /** Threads whose running task was stopped, until they have answered every task posted to them. */
  readonly #stopping = new Set<Slot>()
  readonly #onWalker: ((walker: string) => void) | undefined
  readonly #filesPerProgress: number
  /** Task ids start at 1: 0 is an empty stop cell. */
  #nextId = 1
  #closed = false

  /**
   * `onWalker`: told, with each answer, which walk its thread ran ("native" or "JavaScript (<why>)");
   * `filesPerProgress`: how often a task run with `progress` tells it (FILES_PER_PROGRESS).
   */
  constructor(size: number, onWalker?: (walker: string) => void, filesPerProgress = FILES_PER_PROGRESS) {
    this.size = Math.max(1, size)
    this.#onWalker = onWalker
    this.#filesPerProgress = filesPerProgress
  }

  /**
   * `progress`, when given, is told what the task folds as it goes (every FILES_PER_PROGRESS files)
   * and the rest when it is done, as deltas that add up to the result's objects and bytes.
   */
  run(
    task: WalkTask,
    signal: AbortSignal,
    owner = '',
    progress?: (objects: number, bytes: number) => void,
  ): Promise<WalkResult> {
    if (this.#closed) return Promise.reject(new Error('walk pool closed'))
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise<WalkResult>((resolve, reject) => {
      const job: Job = {
        request: { ...task, id: this.#nextId++, filesPerProgress: progress ? this.#filesPerProgress : 0 },
        owner,
        signal,
        resolve,
        reject,
        onAbort: () => this.#abort(job),
        progress,
        told: { objects: 0, bytes: 0 },
      }
      signal.addEventListener('abort', job.onAbort, { once: true })
      this.#queue.push(job)
      this.#dispatch()
    })
  }

  /**
   * Fails what is queued and running, and asks every thread to end once it has stopped its tasks;
   * resolves when the idle ones have ended (a busy one stopped in JavaScript ends within
   * milliseconds, one stuck in the kernel when its call returns: settleStuckWalks()).
   */
  async close(): Promise<void> {
    this.#closed = true
    for (const job of this.#queue.splice(0)) this.#settle(job, new Error('walk pool closed'))
    const ended: Promise<unknown>[] = []
    for (const slot of [...this.#slots, ...this.#stopping]) {
      if (slot.posted.length === 0) {
        // Waited for, so held until it has ended (a busy one is not: it may never end).
        slot.worker.ref()
        ended.push(once(slot.worker, 'exit'))
      } else if (this.#slots.has(slot)) {
        const running = slot.jobs.get(slot.posted[0] as number)
        for (const job of slot.jobs.values()) this.#settle(job, new Error('walk pool closed'))
        slot.jobs.clear()
        this.#stop(slot, running?.owner ?? '')
      }
      this.#slots.delete(slot)
      // Read after the tasks posted before it: the thread stops them, then ends.
      this.#end(slot)
    }
    await Promise.all(ended)
  }

  /**
   * Stops every task posted to busy `slot` (its running one run for `owner`) and counts its thread
   * as stuck until the running task has answered; the pool goes on without it.
   */
  #stop(slot: Slot, owner: string): void {
    for (const id of slot.posted) this.#stopTask(slot, id)
    this.#slots.delete(slot)
    this.#stopping.add(slot)
    // It may never answer (stuck in the kernel): the process does not wait for it.
    slot.worker.unref()
    stopped(slot.worker, owner, () => Atomics.load(slot.running, 0) !== 0)
  }

  #stopTask(slot: Slot, id: number): void {
    if (slot.stops.includes(id)) return
    const free = slot.stops.indexOf(0)
    // A free cell is certain: no more tasks are posted to a thread than it has cells.
    if (free >= 0) Atomics.store(slot.stops, free, id)
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#freeSlot((this.#queue[0] as Job).owner)
      if (!slot) return
      const job = this.#queue.shift() as Job
      slot.posted.push(job.request.id)
      slot.jobs.set(job.request.id, job)
      slot.worker.ref()
      slot.worker.postMessage({ kind: 'walk', request: job.request } satisfies WalkMessage)
    }
  }

  /** An idle thread, else a new one while there are fewer than `size`, else one busy for `owner` with room. */
  #freeSlot(owner: string): Slot | undefined {
    for (const slot of this.#slots) if (slot.posted.length === 0) return slot
    if (this.#slots.size < this.size) return this.#startSlot()
    for (const slot of this.#slots) {
      if (slot.posted.length >= POSTED_PER_THREAD) continue
      if ([...slot.jobs.values()].every((job) => job.owner === owner)) return slot
    }
    return undefined
  }

  #startSlot(): Slot {
    // The stop cells, then the running cell.
    const shared = new SharedArrayBuffer((POSTED_PER_THREAD + 1) * Int32Array.BYTES_PER_ELEMENT)
    const slot: Slot = {
      worker: startWalkWorker(shared),
      posted: [],
      jobs: new Map(),
      stops: new Int32Array(shared, 0, POSTED_PER_THREAD),
      running: new Int32Array(shared, POSTED_PER_THREAD * Int32Array.BYTES_PER_ELEMENT, 1),
    }
    slot.worker.on('message', (reply: WalkReply | WalkProgress) => this.#answered(slot, reply))
    slot.worker.on('error', (error) => this.#lose(slot, error))
    slot.worker.on('exit', (code) => this.#lose(slot, new Error(`walk worker exited with code ${code}`)))
    // After the listeners (adding a 'message' listener refs the thread again): an idle thread
    // does not keep the process alive; one with tasks does (#dispatch), unless stopped.
    slot.worker.unref()
    this.#slots.add(slot)
    return slot
  }

  #answered(slot: Slot, reply: WalkReply | WalkProgress): void {
    if ('progress' in reply) {
      const job = slot.jobs.get(reply.id)
      if (job) tell(job, reply.progress.objects, reply.progress.bytes)
      return
    }
    const at = slot.posted.indexOf(reply.id)
    if (at < 0) return
    slot.posted.splice(at, 1)
    const cell = slot.stops.indexOf(reply.id)
    if (cell >= 0) Atomics.store(slot.stops, cell, 0)
    // Its running task has come back from the filesystem: the thread is no longer stuck.
    if (at === 0) answered(slot.worker)
    const job = slot.jobs.get(reply.id)
    slot.jobs.delete(reply.id)
    if (job) {
      this.#onWalker?.(reply.walker)
      if (reply.ok) tell(job, reply.result.usage.objects, reply.result.usage.bytes)
      if (reply.ok) this.#settle(job, undefined, reply.result)
      else this.#settle(job, new WalkError(reply.message, reply.code))
    }
    if (slot.posted.length === 0) slot.worker.unref()
    if (slot.posted.length === 0 && this.#stopping.delete(slot)) {
      if (!this.#closed && this.#slots.size < this.size) this.#slots.add(slot)
      else this.#end(slot)
    }
    if (!this.#closed) this.#dispatch()
  }

  /** A thread ended (asked to, or died): what it still ran fails, and the next task gets a fresh thread. */
  /** Asks the thread of `slot` to end once it has answered what was posted to it. */
  #end(slot: Slot): void {
    askedToEnd(slot.worker)
    slot.worker.postMessage({ kind: 'exit' } satisfies WalkMessage)
  }

  #lose(slot: Slot, error: unknown): void {
    ended(slot.worker)
    this.#stopping.delete(slot)
    this.#slots.delete(slot)
    for (const job of slot.jobs.values()) this.#settle(job, error)
    slot.jobs.clear()
    slot.posted.length = 0
    if (!this.#closed) this.#dispatch()
  }

  #abort(job: Job): void {
    const queued = this.#queue.indexOf(job)
    if (queued >= 0) this.#queue.splice(queued, 1)
    for (const slot of this.#slots) {
      if (!slot.jobs.has(job.request.id)) continue
      if (slot.posted[0] !== job.request.id) {
        // Waiting behind another task: skipped when its turn comes, the running one goes on.
        slot.jobs.delete(job.request.id)
        this.#stopTask(slot, job.request.id)
        continue
      }
      // Running: stopped. The tasks behind it go back to the front of the queue for another
      // thread (a walk only reads, so it may start over anywhere).
      const others = [...slot.jobs.values()].filter((other) => other !== job)
      slot.jobs.clear()
      this.#stop(slot, job.owner)
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

/** Tells `job`'s progress what it folded since it was last told: `objects` and `bytes` in all now. */
function tell(job: Job, objects: number, bytes: number): void {
  if (!job.progress) return
  const { told } = job
  job.progress(objects - told.objects, bytes - told.bytes)
  told.objects = objects
  told.bytes = bytes
}

/**
 * A walk worker, from this module's sibling file (compiled or, under tsx, TypeScript). A walk
 * makes short-lived directory entries by the million: a young generation of 8 MB (V8's default
 * grows to 32) collects them as well and keeps the thread's memory small.
 */
function startWalkWorker(stops: SharedArrayBuffer): Worker {
  return startSiblingWorker(import.meta.url, 'walk-worker', {
    workerData: { stops } satisfies WalkWorkerData,
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  })
}
