import type { Worker } from 'node:worker_threads'
import { startSiblingWorker } from '../worker-threads.js'
import type { WalkResult, WalkTask } from './fs-walk.js'
import type { WalkReply, WalkRequest } from './fs-walk-worker.js'

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
  readonly signal: AbortSignal
  readonly resolve: (result: WalkResult) => void
  readonly reject: (error: unknown) => void
  readonly onAbort: () => void
}

interface Slot {
  readonly worker: Worker
  job: Job | undefined
}

/**
 * Up to `size` worker threads running fs walk tasks, created on demand and ended by close(). A
 * synchronous walk cannot be interrupted, so aborting a running task terminates its thread (a new
 * one is started for the next task).
 */
export class WalkPool {
  readonly size: number
  readonly #queue: Job[] = []
  readonly #slots = new Set<Slot>()
  #nextId = 0
  #closed = false

  constructor(size: number) {
    this.size = Math.max(1, size)
  }

  run(task: WalkTask, signal: AbortSignal): Promise<WalkResult> {
    if (this.#closed) return Promise.reject(new Error('walk pool closed'))
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise<WalkResult>((resolve, reject) => {
      const job: Job = {
        request: { ...task, id: this.#nextId++ },
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
        if (slot.job) this.#settle(slot.job, new Error('walk pool closed'))
        slot.job = undefined
        return slot.worker.terminate()
      }),
    )
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#idleSlot()
      if (!slot) return
      const job = this.#queue.shift() as Job
      slot.job = job
      slot.worker.postMessage(job.request)
    }
  }

  #idleSlot(): Slot | undefined {
    for (const slot of this.#slots) if (!slot.job) return slot
    if (this.#slots.size >= this.size) return undefined
    const slot: Slot = { worker: startWalkWorker(), job: undefined }
    slot.worker.unref()
    slot.worker.on('message', (reply: WalkReply) => {
      const job = slot.job
      if (!job || job.request.id !== reply.id) return
      slot.job = undefined
      if (reply.ok) this.#settle(job, undefined, reply.result)
      else this.#settle(job, new WalkError(reply.message, reply.code))
      this.#dispatch()
    })
    slot.worker.on('error', (error) => this.#lose(slot, error))
    slot.worker.on('exit', (code) => this.#lose(slot, new Error(`walk worker exited with code ${code}`)))
    this.#slots.add(slot)
    return slot
  }

  /** A worker died: its task fails, and the next task gets a fresh worker. */
  #lose(slot: Slot, error: unknown): void {
    if (!this.#slots.delete(slot)) return
    if (slot.job) this.#settle(slot.job, error)
    if (!this.#closed) this.#dispatch()
  }

  #abort(job: Job): void {
    const queued = this.#queue.indexOf(job)
    if (queued >= 0) this.#queue.splice(queued, 1)
    for (const slot of this.#slots) {
      if (slot.job !== job) continue
      this.#slots.delete(slot)
      void slot.worker.terminate()
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
  return startSiblingWorker(import.meta.url, 'fs-walk-worker', {
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  })
}
