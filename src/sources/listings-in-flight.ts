/**
 * One scan round's budget of listings in flight (SCAN_CONCURRENCY), shared by every bucket: a
 * bucket being measured holds one slot; a source that can list one bucket in several parts (s3:
 * key ranges) takes spare slots for the extra parts, so one huge bucket uses the lanes the other
 * buckets left idle, and many buckets leave no spare slot to split with. Waiters are served in
 * order, before anyone who only tries: a bucket waiting for its turn is not overtaken by the
 * extra parts of another.
 */
export class ListingSlots {
  #free: number
  readonly #waiting: Array<() => void> = []

  constructor(readonly size: number) {
    this.#free = size
  }

  /** Slots nobody holds or waits for. */
  get spare(): number {
    return this.#waiting.length > 0 ? 0 : this.#free
  }

  /** Waits for a slot; the returned function gives it back (once). */
  async acquire(): Promise<() => void> {
    if (this.#free > 0 && this.#waiting.length === 0) {
      this.#free--
      return this.#releaser()
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
    return this.#releaser()
  }

  /** A slot if one is spare now (nobody waiting), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.spare === 0) return undefined
    this.#free--
    return this.#releaser()
  }

  #releaser(): () => void {
    let held = true
    return () => {
      if (!held) return
      held = false
      const next = this.#waiting.shift()
      // Handed straight to the next waiter: the slot never shows as spare in between.
      if (next) next()
      else this.#free++
    }
  }
}
