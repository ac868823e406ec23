import { Value } from '@sinclair/typebox/value'
import {
  checkRecords,
  FORMAT,
  LEGACY_VERSION,
  LegacyStateFileSchema,
  loadedSnapshot,
  type StateLoad,
} from './state-file-format.js'

/**
 * Version 1 of the state file: the whole snapshot as one JSON document, as exporters before the
 * line format wrote it. Still read, so an upgrade serves the last figures at once rather than
 * rescanning every bucket; parsed and checked in one go (at 100,000 buckets over a second of the
 * event loop, once: the next scan writes the line format, version 3).
 */
export const LEGACY_START = `{"format":"${FORMAT}","version":${LEGACY_VERSION},`

export function loadLegacyState(text: string, sourceId: string, nowMs: number): StateLoad {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { status: 'ignored', reason: `not valid JSON (${(error as Error).message})` }
  }
  if (!Value.Check(LegacyStateFileSchema, parsed)) {
    const first = Value.Errors(LegacyStateFileSchema, parsed).First()
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown shape'
    return {
      status: 'ignored',
      reason: `not a usage snapshot of format ${FORMAT} v${LEGACY_VERSION} (${where})`,
    }
  }
  const { buckets, ...outline } = parsed.snapshot
  const { kept, refused } = checkRecords(buckets, nowMs)
  return loadedSnapshot(outline, kept, refused, sourceId, nowMs)
}
