/**
 * A bounded double-ended queue of log entries on a ring buffer: O(1) push at the back, take from
 * the front, and put a batch back at the front when its delivery must be retried.
 *
 * The bound covers entries out for delivery too (`reserved`): while a batch is in flight the queue
 * holds at most `capacity - reserved`, so the batch fits back in front if it has to be retried and
 * the total held never exceeds `capacity`.
 */
export class EntryQueue<T> {
  readonly capacity: number
  readonly #slots: (T | undefined)[]
  #head = 0
  #size = 0

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be >= 1, got ${capacity}`)
    this.capacity = capacity
    this.#slots = new Array<T | undefined>(capacity)
  }

  get size(): number {
    return this.#size
  }

  /**
   * Appends `entry`, making room by dropping the oldest queued entry when the queue plus the
   * `reserved` in-flight entries are at capacity. Returns how many entries were dropped: 0, or 1
   * (the oldest, or `entry` itself when every slot is taken by the in-flight batch).
   */
  pushDroppingOldest(entry: T, reserved = 0): number {
    let dropped = 0
    if (this.#size + reserved >= this.capacity) {
      if (this.#size === 0) return 1
      this.#shift()
      dropped = 1
    }
    this.#slots[(this.#head + this.#size) % this.capacity] = entry
    this.#size++
    return dropped
  }

  /** Removes and returns up to `count` entries from the front, oldest first. */
  takeFront(count: number): T[] {
    const taken: T[] = []
    while (taken.length < count && this.#size > 0) taken.push(this.#shift())
    return taken
  }

  /** Puts entries back at the front in their order (a batch whose delivery is retried). */
  restoreFront(entries: readonly T[]): void {
    if (this.#size + entries.length > this.capacity) {
      throw new RangeError(
        `cannot restore ${entries.length} entries: ${this.#size} of ${this.capacity} slots taken`,
      )
    }
    for (let index = entries.length - 1; index >= 0; index--) {
      this.#head = (this.#head - 1 + this.capacity) % this.capacity
      this.#slots[this.#head] = entries[index]
      this.#size++
    }
  }

  /** Empties the queue; returns how many entries it held. */
  clear(): number {
    const held = this.#size
    this.#slots.fill(undefined)
    this.#head = 0
    this.#size = 0
    return held
  }

  #shift(): T {
    const entry = this.#slots[this.#head] as T
    // Release the reference so a dropped or delivered entry can be collected.
    this.#slots[this.#head] = undefined
    this.#head = (this.#head + 1) % this.capacity
    this.#size--
    return entry
  }
}
