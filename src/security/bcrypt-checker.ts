import type { Worker } from 'node:worker_threads'
import { startSiblingWorker } from '../worker-threads.js'
import type { BcryptAnswer, BcryptRequest } from './bcrypt-worker.js'

/**
 * Compares passwords with bcrypt hashes on one worker thread. bcryptjs is pure JavaScript: a
 * comparison at cost 10 took 150-230 ms of CPU here, which on the main thread would stall every
 * scrape and probe for that long; on the thread they queue one after another (as
 * exporter-toolkit's mutex makes them), so a flood of wrong passwords costs one core, never the
 * event loop. The thread starts on the first comparison and does not keep the process alive.
 */
export class BcryptChecker {
  #worker: Worker | undefined
  readonly #waiting = new Map<
    number,
    { resolve: (matches: boolean) => void; reject: (error: Error) => void }
  >()
  #nextId = 0

  /** Comparisons asked and not answered yet. */
  get pending(): number {
    return this.#waiting.size
  }

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.#worker ?? this.#start()
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject })
      const request: BcryptRequest = { id, password, hash }
      worker.postMessage(request)
    })
  }

  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    this.#failAll(new Error('the password checker was closed'))
    await worker?.terminate()
  }

  #start(): Worker {
    const worker = startSiblingWorker(import.meta.url, 'bcrypt-worker')
    worker.unref()
    worker.on('message', ({ id, matches }: BcryptAnswer) => {
      const waiter = this.#waiting.get(id)
      this.#waiting.delete(id)
      waiter?.resolve(matches)
    })
    // A thread that died is replaced on the next comparison; those it held fail (a 500, logged).
    const lost = (error: Error) => {
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#failAll(error)
    }
    worker.on('error', lost)
    worker.on('exit', (code) => lost(new Error(`the password checker thread exited (${code})`)))
    this.#worker = worker
    return worker
  }

  #failAll(error: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error)
    this.#waiting.clear()
  }
}
