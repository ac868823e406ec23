import { setTimeout as sleep } from 'node:timers/promises'

/** How long to poll and how often; a bound on waiting, not a timing assertion: set far above need. */
export interface WaitOptions {
  readonly timeoutMs?: number
  readonly intervalMs?: number
  /**
   * A probe that throws is tried again (a server not listening yet), its last error named on
   * timeout; without it, what the probe throws ends the wait.
   */
  readonly retryErrors?: boolean
  /** Called before each try; what it throws ends the wait at once (a process that has exited). */
  readonly alive?: () => void
}

/**
 * Polls `probe` until it gives a value other than undefined, every `intervalMs`, for at most
 * `timeoutMs`; throws with `what` on timeout. The one poller of the suite: conditions, servers
 * starting, daemons coming up, Prometheus storing what it scraped.
 */
export async function waitForValue<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 10_000, intervalMs = 10, retryErrors = false, alive }: WaitOptions = {},
): Promise<T> {
  const until = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    alive?.()
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      if (!retryErrors) throw error
      lastError = error
    }
    if (Date.now() > until) {
      const why = lastError === undefined ? '' : `: ${String(lastError)}`
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`)
    }
    await sleep(intervalMs)
  }
}

/** Polls `check` until it returns true (waitForValue's bounds and options). */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<void> {
  await waitForValue(what, async () => ((await check()) ? true : undefined), options)
}
