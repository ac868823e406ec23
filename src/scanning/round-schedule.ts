/*
 * When the scanner's next round starts: SCAN_INTERVAL_SECONDS (with jitter) after the last one
 * ended, or sooner when change events ask for an early round (POST /events). One timer, never
 * two rounds at once: the scanner says when a round starts and ends, this decides the next.
 */

/** The pause between rounds varies by this share either way, so replicas do not scan in step. */
const JITTER = 0.1

export class RoundSchedule {
  readonly #intervalMs: number
  /** Starts a round (the scanner's scanNow); called by the timer. */
  readonly #startRound: () => void
  #timer: NodeJS.Timeout | undefined
  /** When the scheduled round starts, ms since the epoch; undefined while one runs or once closed. */
  #nextAtMs: number | undefined
  /** The schedule has begun (state file loaded or given up): early rounds may be asked for. */
  #begun = false
  #running = false
  #closed = false
  /** An early round asked for while one ran: the pause it wants after that one ends; undefined for none. */
  #requestedPauseMs: number | undefined
  /** When the last round ended (ms since the epoch). */
  #lastEndMs: number | undefined

  constructor(intervalMs: number, startRound: () => void) {
    this.#intervalMs = intervalMs
    this.#startRound = startRound
  }

  /** When the next round starts (ms since the epoch); undefined while one runs, or once closed. */
  get nextAtMs(): number | undefined {
    return this.#nextAtMs
  }

  /** The next round starts in `delayMs`, replacing whatever was scheduled. */
  startIn(delayMs: number): void {
    this.#begun = true
    clearTimeout(this.#timer)
    this.#nextAtMs = Date.now() + delayMs
    this.#timer = setTimeout(() => this.#startRound(), delayMs)
    this.#timer.unref()
  }

  /** A round began (scheduled or asked for): nothing is scheduled while it runs. */
  roundStarted(): void {
    this.#running = true
    clearTimeout(this.#timer)
    this.#nextAtMs = undefined
  }

  /** A round ended: the next one after the interval, or sooner if an early round was asked for meanwhile. */
  roundEnded(): void {
    this.#running = false
    this.#lastEndMs = Date.now()
    const pause = this.#requestedPauseMs
    this.#requestedPauseMs = undefined
    const interval = this.#intervalMs * (1 - JITTER + 2 * JITTER * Math.random())
    if (!this.#closed) this.startIn(pause === undefined ? interval : Math.min(pause, interval))
  }

  /**
   * Asks for a round `pauseMs` after the last one ended, or after the running one ends. Never
   * overlaps a round, never delays one due sooner; nothing before the schedule begins or once closed.
   */
  requestRound(pauseMs: number): void {
    if (this.#closed || !this.#begun) return
    if (this.#running) {
      this.#requestedPauseMs = Math.min(this.#requestedPauseMs ?? pauseMs, pauseMs)
      return
    }
    const sinceLastMs = this.#lastEndMs === undefined ? pauseMs : Date.now() - this.#lastEndMs
    const delayMs = Math.max(0, pauseMs - sinceLastMs)
    if (this.#nextAtMs === undefined || this.#nextAtMs > Date.now() + delayMs) this.startIn(delayMs)
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#nextAtMs = undefined
  }
}
