import { setTimeout as sleep } from 'node:timers/promises'

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number
  /** Backoff before retry k (1-based) is a random delay up to min(maxDelayMs, baseDelayMs x 2^(k-1)). */
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/** Four attempts over about two seconds at worst: enough to ride out a throttling burst or a reconnect. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 8000 }

export interface RetryOptions {
  readonly policy: RetryPolicy
  readonly signal: AbortSignal
  /** Whether this failure is worth another attempt (throttling, network), or final (auth, missing). */
  readonly isRetryable: (error: unknown) => boolean
}

/**
 * Calls `attempt` until it succeeds, fails with a final error, or runs out of attempts, sleeping a
 * "full jitter" exponential backoff between attempts (AWS's recommendation: retries of many
 * clients spread out instead of arriving together). An abort ends the wait at once.
 */
export async function withRetry<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy, signal, isRetryable } = options
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (signal.aborted) throw signal.reason
      if (tries >= policy.attempts || !isRetryable(error)) throw error
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (tries - 1))
      await sleep(Math.random() * ceiling, undefined, { signal }).catch(() => {
        throw signal.reason
      })
    }
  }
}
