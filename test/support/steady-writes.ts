import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Writes at a steady pace in the background (a growing data directory, a bucket filling its
 * quota) until stopped or `maxWrites` is reached, so the trend of what is written is known: a
 * test asserts the figures it makes, never the clock.
 */
export interface SteadyWrites {
  /** Writes done so far. */
  readonly count: number
  /** The error that ended the writes early, if one did. */
  readonly failure: unknown
  /** Ends the writes and waits for the one under way. */
  stop(): Promise<void>
}

export function startSteadyWrites(
  write: (index: number) => Promise<void>,
  options: { readonly everyMs: number; readonly maxWrites: number },
): SteadyWrites {
  let count = 0
  let failure: unknown
  const stopper = new AbortController()
  const loop = (async () => {
    for (let index = 0; index < options.maxWrites && !stopper.signal.aborted; index++) {
      try {
        await write(index)
        count++
        await sleep(options.everyMs, undefined, { signal: stopper.signal })
      } catch (error) {
        if (!stopper.signal.aborted) failure = error
        return
      }
    }
  })()
  return {
    get count() {
      return count
    },
    get failure() {
      return failure
    },
    async stop() {
      stopper.abort()
      await loop
    },
  }
}
