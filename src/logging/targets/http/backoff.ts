import type { BackoffPolicy } from '../types.js'

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000 }

/**
 * Exponential backoff with "equal jitter": the ceiling doubles per consecutive failure (capped),
 * and the delay is drawn from its upper half, so exporters restarted together do not retry in step
 * and none retries at once. `attempt` counts consecutive failures from 1.
 */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30)
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent)
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}

/**
 * The delay a `Retry-After` header asks for (seconds, or an HTTP date), in ms; undefined when the
 * header is absent or unreadable. The caller bounds it by the policy's maximum.
 */
export function retryAfterMs(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined || value.trim() === '') return undefined
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
