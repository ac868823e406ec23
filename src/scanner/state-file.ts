import { readFile } from 'node:fs/promises'
import { Value } from '@sinclair/typebox/value'
import type { UsageSnapshot } from './snapshot.js'
import {
  checkRecords,
  completedAtProblem,
  FORMAT,
  FORMAT_VERSION,
  type RefusedRecord,
  StateFileSchema,
} from './state-file-format.js'
import { type UserScan, userScanProblem } from './user-usage.js'

/**
 * STATE_FILE: the last snapshot on disk, so a restart serves figures at once. Written atomically
 * (a temporary file in the same folder, flushed, then renamed over the old one), so a crash leaves
 * the old file or the new one, never half of one. Read with a schema: anything that is not a
 * snapshot of this format version (corrupt, truncated, another program's file, histogram bounds
 * that changed) is refused with a reason, never trusted.
 */

export type { RefusedRecord } from './state-file-format.js'
export { removeStaleTemporaries, saveState, stateFileTarget } from './state-file-save.js'

export type StateLoad =
  | {
      readonly status: 'loaded'
      readonly snapshot: UsageSnapshot
      readonly refused: readonly RefusedRecord[]
      /** Why the per-user part was left out, when it was. */
      readonly usersRefused?: string
    }
  | { readonly status: 'absent' }
  | { readonly status: 'ignored'; readonly reason: string }

/**
 * Reads the state file written for `sourceId`. A file that is not one (or whose completion time is
 * out of range) comes back as 'ignored' with a reason; bucket records that are not whole and in
 * range are left out, each with a reason.
 */
export async function loadState(path: string, sourceId: string, nowMs = Date.now()): Promise<StateLoad> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' }
    return { status: 'ignored', reason: `cannot read it: ${(error as Error).message}` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { status: 'ignored', reason: `not valid JSON (${(error as Error).message})` }
  }
  if (!Value.Check(StateFileSchema, parsed)) {
    const first = Value.Errors(StateFileSchema, parsed).First()
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown shape'
    return {
      status: 'ignored',
      reason: `not a usage snapshot of format ${FORMAT} v${FORMAT_VERSION} (${where})`,
    }
  }
  if (parsed.snapshot.sourceId !== sourceId) {
    return {
      status: 'ignored',
      reason: `written for another source (${parsed.snapshot.sourceId}), not ${sourceId}`,
    }
  }
  const timeProblem = completedAtProblem(parsed.snapshot.completedAtMs, nowMs)
  if (timeProblem) return { status: 'ignored', reason: timeProblem }
  const { kept, refused } = checkRecords(parsed.snapshot.buckets, nowMs)
  const { users, ...outline } = parsed.snapshot
  const usersRefused = users === undefined ? undefined : userScanProblem(users)
  return {
    status: 'loaded',
    snapshot: {
      ...outline,
      buckets: kept,
      ...(users !== undefined && usersRefused === undefined ? { users: users as UserScan } : {}),
    },
    refused,
    ...(usersRefused === undefined ? {} : { usersRefused }),
  }
}
