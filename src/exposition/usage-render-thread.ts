import { once } from 'node:events'
import type { Worker } from 'node:worker_threads'
import type { ExpositionNaming } from '../metrics/exposition/writer.js'
import { startSiblingWorker } from '../worker-threads.js'
import type { SeriesBudget } from './usage-budget.js'
import type { RenderMessage, RenderReply } from './usage-render-worker.js'

/** A small young generation: more, shorter collections on the worker, and less memory held. */
const WORKER_YOUNG_GENERATION_MB = 8

type Batch = Extract<RenderMessage, { kind: 'buckets' }>['records']

/** One rendering on the thread: its batches, then its end (the reply), or its drop. */
export interface ThreadRendering {
  post(records: Batch): void
  /** Asks for the families; resolves with the thread's reply. */
  end(): Promise<RenderReply>
  /** Abandons it: the thread forgets it, and end() rejects. */
  drop(reason: unknown): void
}

/**
 * The usage render worker (usage-render-worker.ts): started at the first rendering that needs it
 * and kept for the next ones, so a snapshot a second renders without a thread started and ended
 * each time (thread churn aborted the process now and then: docs/faults.md). close() asks it to end
 * and waits until it has; a thread that died is replaced at the next rendering. It keeps the
 * process alive only while a rendering is in flight.
 */
export class RenderThread {
  #worker: Worker | undefined
  #nextId = 1
  readonly #waiting = new Map<
    number,
    { resolve: (reply: RenderReply) => void; reject: (error: unknown) => void }
  >()
  /** Renderings begun and neither ended nor dropped. */
  #open = 0
  #closed = false

  begin(naming: string | ExpositionNaming, budget: SeriesBudget, startSeries: number): ThreadRendering {
    if (this.#closed) throw new Error('usage render thread closed')
    const worker = this.#started()
    const id = this.#nextId++
    const send = (message: RenderMessage) => worker.postMessage(message)
    send({ kind: 'begin', id, naming, budget, startSeries })
    this.#opened(1)
    let settled = false
    const close = () => {
      if (settled) return false
      settled = true
      this.#opened(-1)
      return true
    }
    const reply = new Promise<RenderReply>((resolve, reject) => this.#waiting.set(id, { resolve, reject }))
    // Settled by drop() or the thread's death when nobody waits any more: nobody's news then.
    reply.catch(() => undefined)
    return {
      post: (records) => send({ kind: 'buckets', id, records }),
      end: () => {
        send({ kind: 'end', id })
        return reply.finally(close)
      },
      drop: (reason) => {
        if (!close()) return
        send({ kind: 'drop', id })
        this.#waiting.get(id)?.reject(reason)
        this.#waiting.delete(id)
      },
    }
  }

  /** Asks the thread to end, and waits until it has (renderings in flight fail). */
  async close(): Promise<void> {
    this.#closed = true
    const worker = this.#worker
    if (!worker) return
    const exited = once(worker, 'exit')
    // Waited for: held until it has ended.
    worker.ref()
    worker.postMessage({ kind: 'exit' } satisfies RenderMessage)
    await exited
  }

  #started(): Worker {
    if (this.#worker) return this.#worker
    const worker = startSiblingWorker(import.meta.url, 'usage-render-worker', {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    })
    worker.on('message', (reply: RenderReply) => {
      this.#waiting.get(reply.id)?.resolve(reply)
      this.#waiting.delete(reply.id)
    })
    const lost = (error: unknown) => {
      if (this.#worker !== worker) return
      this.#worker = undefined
      for (const waiting of this.#waiting.values()) waiting.reject(error)
      this.#waiting.clear()
    }
    worker.once('error', lost)
    worker.once('exit', (code) => lost(new Error(`usage render worker exited with code ${code}`)))
    // After the listeners (adding a 'message' listener refs the thread again); #opened refs it.
    worker.unref()
    this.#worker = worker
    return worker
  }

  #opened(change: number): void {
    this.#open += change
    if (this.#open > 0) this.#worker?.ref()
    else this.#worker?.unref()
  }
}
