import { readFileSync } from 'node:fs'
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

/**
 * The longest the main thread ran without returning to the event loop, in CPU time: what this
 * process's own code held the loop for, without the waits for a core that perf_hooks' delay also
 * counts when other processes keep the cores busy. A 1 ms timer reads the thread's CPU time
 * (/proc/thread-self/schedstat, ns); what the thread ran between two ticks is one stretch.
 */
export class LoopBusyMonitor {
  #timer: NodeJS.Timeout | undefined
  #lastNs = 0
  #longestNs = 0

  start(): void {
    this.#lastNs = threadCpuNs()
    this.#longestNs = 0
    this.#timer = setInterval(() => {
      const now = threadCpuNs()
      this.#longestNs = Math.max(this.#longestNs, now - this.#lastNs)
      this.#lastNs = now
    }, 1)
  }

  /** Stops and returns the longest stretch of the phase, in ms. */
  stop(): number {
    clearInterval(this.#timer)
    this.#longestNs = Math.max(this.#longestNs, threadCpuNs() - this.#lastNs)
    return this.#longestNs / 1e6
  }
}

function threadCpuNs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ', 1)[0])
}

/** The calling thread's CPU time so far, in ms (/proc/thread-self/schedstat). */
export function threadCpuMs(): number {
  return threadCpuNs() / 1e6
}
