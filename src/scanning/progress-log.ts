import type { Logger } from 'pino'
import type { RoundProgressView } from './round-progress.js'

/**
 * The progress line of a running round: one info line every PROGRESS_LOG_INTERVAL_MS while it
 * runs, the first that long after its start, so a round shorter than that says nothing more than
 * "usage scan finished". Its fields are named as the finished line's (buckets, objects, bytes,
 * requests), so the last progress line and the finished line read side by side.
 */

/** Between two progress lines of a round (and before the first): 15 s. */
const PROGRESS_LOG_INTERVAL_MS = 15_000

/** Calls `tick` every `ms` until the returned function is called; setInterval, unref'd, by default. */
export type Every = (ms: number, tick: () => void) => () => void

const everyInterval: Every = (ms, tick) => {
  const timer = setInterval(tick, ms)
  timer.unref()
  return () => clearInterval(timer)
}

export interface ProgressLogOptions {
  readonly logger: Pick<Logger, 'info'>
  readonly view: () => RoundProgressView
  /** PROGRESS_LOG_INTERVAL_MS unless a test says otherwise. */
  readonly intervalMs?: number | undefined
  readonly every?: Every
}

/** Logs the round's progress at a steady cadence; returns what stops it (at the round's end). */
export function logProgressWhileRunning(options: ProgressLogOptions): () => void {
  const every = options.every ?? everyInterval
  return every(options.intervalMs ?? PROGRESS_LOG_INTERVAL_MS, () =>
    options.logger.info(progressFields(options.view()), 'usage scan progress'),
  )
}

/** The progress line's fields: what a person reads and a log query filters on. */
export function progressFields(view: RoundProgressView): Record<string, unknown> {
  return {
    source: view.source,
    phase: view.phase,
    bucketsDone: view.bucketsDone,
    ...(view.buckets === undefined ? {} : { buckets: view.buckets }),
    failed: view.failed,
    objects: view.objects,
    bytes: view.bytes,
    ...(view.requests === undefined ? {} : { requests: view.requests }),
    objectsPerSecond: Math.round(view.objectsPerSecond * 10) / 10,
    elapsedSeconds: Math.round(view.elapsedSeconds * 10) / 10,
    ...(view.inProgressCount > 0
      ? { inProgress: view.inProgress, bucketsInProgress: view.inProgressCount }
      : {}),
  }
}
