import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks'

/**
 * The longest the event loop was held during a phase, as perf_hooks measures it (a 1 ms timer's
 * lateness): what a request arriving at the worst moment waits before anything runs.
 */
export class LoopBlockMonitor {
  readonly #histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 })

  start(): void {
    this.#histogram.reset()
    this.#histogram.enable()
  }

  /** Stops and returns the longest block of the phase, in ms. */
  stop(): number {
    this.#histogram.disable()
    return this.#histogram.max / 1e6
  }
}
