import type { ExpositionBlock } from '../metrics/exposition/block.js'
import type { ExpositionNaming } from '../metrics/exposition/writer.js'
import type { UsageSnapshot } from '../scanner/snapshot.js'
import { renderUsageBlock } from './usage-render.js'

const noop = () => undefined

/**
 * The usage families of the current snapshot, rendered once (both formats, and compressed) and
 * shared by every scrape of that snapshot. Snapshots are immutable and replaced whole, so the
 * snapshot's identity is the cache key: a new snapshot (a bucket added, one deleted, new figures)
 * is a new rendering, started when the scanner publishes it so the first scrape finds it ready
 * or nearly so.
 */
export class UsageExposition {
  readonly #naming: string | ExpositionNaming
  readonly #controller = new AbortController()
  #current: { readonly snapshot: UsageSnapshot; readonly block: Promise<ExpositionBlock> } | undefined

  constructor(naming: string | ExpositionNaming) {
    this.#naming = naming
  }

  /** Starts rendering `snapshot` ahead of its first scrape (the scanner's onSnapshot hook). */
  prepare(snapshot: UsageSnapshot): void {
    // A failure is the scrape's to report, when it asks for the block.
    this.blockFor(snapshot).catch(() => undefined)
  }

  /**
   * The rendered families of `snapshot`. A rendering already started for an older snapshot runs to
   * its end for the scrapes waiting on it; it is dropped once they are served. The block it
   * replaces is retired once this one is ready: its text, if held, goes (metrics/exposition/block.ts).
   */
  blockFor(snapshot: UsageSnapshot): Promise<ExpositionBlock> {
    if (this.#current?.snapshot === snapshot) return this.#current.block
    const previous = this.#current?.block
    const block = renderUsageBlock(snapshot, this.#naming, { signal: this.#controller.signal })
    this.#current = { snapshot, block }
    const retirePrevious = () => previous?.then((replaced) => replaced.retire(), noop)
    block.then(retirePrevious, retirePrevious)
    return block
  }

  /** Stops any rendering or compression in progress. */
  close(): void {
    this.#controller.abort(new Error('exporter closing'))
    this.#current?.block.then((block) => block.retire(), noop)
    this.#current = undefined
  }
}
