import type { DriveState } from '../collectors/drive-probe.js'
import type { CollectorOutcome } from '../collectors/runner.js'
import type { RoundProgressView } from '../scanning/round-progress.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'

/** One configured drive and what the last scrape found (undefined before the first scrape). */
export interface DriveStatus {
  readonly path: string
  readonly state?: DriveState
}

/**
 * What the exporter knows about itself right now, read by the landing page. Every value comes
 * from work already done (the last scrape, the last scan): reading it never does I/O.
 */
export interface ExporterStatus {
  readonly startedAtMs: number
  readonly namespace: string
  /** BUCKETS_SOURCE. */
  readonly source: string
  readonly scanIntervalSeconds: number
  collectors(): readonly CollectorOutcome[]
  drives(): readonly DriveStatus[]
  /** Readiness checks not passing yet. */
  waitingFor(): readonly string[]
  /** The bucket scanner's last snapshot; undefined until the first scan (or state file). */
  usage(): UsageSnapshot | undefined
  /** Why the source failed its last scan (to be scrubbed of secrets before showing); undefined when up. */
  sourceFailure(): string | undefined
  /** When the next scan starts, ms since the epoch; undefined while one runs. */
  nextScanAtMs(): number | undefined
  /** The running scan round's progress; undefined between rounds. */
  scanProgress?(): RoundProgressView | undefined
}
