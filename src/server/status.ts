import type { DriveState } from '../collectors/drive-probe.js'
import type { CollectorOutcome } from '../collectors/runner.js'
import type { UsageSnapshot } from '../scanner/snapshot.js'

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
  /** When the next scan is due, ms since the epoch; undefined while a scan runs. */
  nextScanAtMs(): number | undefined
  /** Why the last scan found the source down (secrets not yet blanked); undefined when up. */
  sourceFailure(): string | undefined
}
