import { waitFor } from './wait-for.js'

/**
 * Waits (bounded) until GET `url` answers 200: how a test knows a process is up when its mode
 * prints nothing (LOG_MODE=quiet). `alive` stops the wait early when the process has exited.
 */
export async function waitForHttpOk(url: string, alive: () => boolean, timeoutMs = 20_000): Promise<void> {
  await waitFor(
    `200 from ${url}`,
    async () => {
      if (!alive()) throw new Error(`the process serving ${url} exited`)
      try {
        return (await fetch(url)).status === 200
      } catch {
        return false
      }
    },
    { timeoutMs, intervalMs: 50 },
  )
}
