import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Polls `check` until it returns true, every `intervalMs`, for at most `timeoutMs`; throws with
 * `what` on timeout. A bound on waiting, not a timing assertion: it is set far above need.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(intervalMs)
  }
}
