import type { ChangeListener } from './types.js'

export interface EarlyRoundsOptions {
  /** EVENTS_DEBOUNCE_SECONDS in ms: how long after the first event the round is asked for. */
  readonly debounceMs: number
  /**
   * Asks the scanner for a round, at least `pauseMs` (the debounce) after the last one ended: it
   * never overlaps a running one.
   */
  readonly requestRound: (pauseMs: number) => void
}

/**
 * A change listener that starts the next scan round early: the first event arms a timer of
 * `debounceMs`, the events after it while it is armed join it, and when it fires one round is
 * asked for, to start no sooner than `debounceMs` after the last round ended. So at most one
 * early round is asked for per period however many events arrive, and rounds keep a pause of a
 * period between them however long they take.
 */
export class EarlyRounds implements ChangeListener {
  readonly #options: EarlyRoundsOptions
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor(options: EarlyRoundsOptions) {
    this.#options = options
  }

  changed(_bucket: string, _key: string): void {
    if (this.#timer || this.#closed) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#options.requestRound(this.#options.debounceMs)
    }, this.#options.debounceMs)
    this.#timer.unref()
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
