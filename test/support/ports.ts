import { createServer } from 'node:net'
import { waitFor } from './wait-for.js'

/** A port free right now on 127.0.0.1 (PORT must be >= 1, so a child process cannot be given 0). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

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
