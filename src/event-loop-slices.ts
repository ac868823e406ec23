import { setImmediate as nextTurn } from 'node:timers/promises'

/** How long a slice of work holds the event loop before giving it back (the longest block aimed at is 50 ms). */
export const SLICE_MS = 8

/**
 * Long work on the event loop cut into slices of about SLICE_MS: between items, `due` says the
 * slice is spent and `next()` gives the loop a turn (timers, sockets, a scrape) before the next
 * slice starts. At 100,000 buckets a pass over a snapshot is hundreds of milliseconds; in slices,
 * a scrape arriving meanwhile waits one slice at most.
 */
export class Slices {
  readonly #sliceMs: number
  #startedAt = performance.now()

  constructor(sliceMs = SLICE_MS) {
    this.#sliceMs = sliceMs
  }

  /** Whether this slice has run its time. */
  get due(): boolean {
    return performance.now() - this.#startedAt >= this.#sliceMs
  }

  /** Gives the event loop a turn and starts the next slice. */
  async next(): Promise<void> {
    await nextTurn()
    this.#startedAt = performance.now()
  }
}

/** Calls `visit` with each item in order, in slices. */
export async function eachInSlices<T>(
  items: Iterable<T>,
  visit: (item: T, index: number) => void,
): Promise<void> {
  const slices = new Slices()
  let index = 0
  for (const item of items) {
    visit(item, index++)
    if (slices.due) await slices.next()
  }
}

/** The items `keep` keeps, in order, tested in slices. */
export async function keptInSlices<T>(
  items: readonly T[],
  keep: (item: T, index: number) => boolean,
): Promise<T[]> {
  const kept: T[] = []
  await eachInSlices(items, (item, index) => {
    if (keep(item, index)) kept.push(item)
  })
  return kept
}
