/**
 * Freezes `value` and everything reachable from it. The exporter's snapshots are immutable by type
 * only (src/snapshot/snapshot.ts says why); tests hand the code frozen ones, so that any write into
 * a snapshot a test feeds it (ESM is strict mode) throws instead of passing unseen.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  for (const inner of Object.values(value)) deepFreeze(inner)
  return Object.freeze(value)
}
