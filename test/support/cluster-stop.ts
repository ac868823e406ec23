import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A throwaway cluster's stop(): every daemon gone, its folder removed, and a second call harmless. */
export async function assertStopsEverything(cluster: {
  readonly dir: string
  daemonPids(): number[]
  stop(): Promise<void>
}): Promise<void> {
  const pids = cluster.daemonPids()
  await cluster.stop()
  assert.equal(existsSync(cluster.dir), false)
  for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} still running`)
  await cluster.stop() // idempotent
}
