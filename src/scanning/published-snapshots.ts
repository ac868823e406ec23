import type { Logger } from 'pino'
import type { UsageSnapshot } from '../snapshot/snapshot.js'

/**
 * The scanner's last published snapshot and those who listen for the next: the scrape's render
 * cache, /readyz, the state file. A listener that throws is logged, never stops the others.
 */
export class PublishedSnapshots {
  readonly #logger: Logger
  readonly #listeners = new Set<(snapshot: UsageSnapshot) => void>()
  #latest: UsageSnapshot | undefined

  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** The last snapshot published; undefined until there is one. */
  get latest(): UsageSnapshot | undefined {
    return this.#latest
  }

  /** The current snapshot, or the first one published (rejects when `closed` aborts first). */
  first(closed: AbortSignal): Promise<UsageSnapshot> {
    if (this.#latest) return Promise.resolve(this.#latest)
    if (closed.aborted) return Promise.reject(closed.reason)
    return new Promise((resolve, reject) => {
      const onClose = () => reject(closed.reason)
      closed.addEventListener('abort', onClose, { once: true })
      const unsubscribe = this.listen((snapshot) => {
        unsubscribe()
        closed.removeEventListener('abort', onClose)
        resolve(snapshot)
      })
    })
  }

  /** Calls `listener` with each snapshot published from now on; returns the unsubscribe function. */
  listen(listener: (snapshot: UsageSnapshot) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  publish(snapshot: UsageSnapshot): void {
    this.#latest = snapshot
    for (const listener of this.#listeners) {
      try {
        listener(snapshot)
      } catch (error) {
        this.#logger.error({ err: error }, 'snapshot listener failed')
      }
    }
  }
}
