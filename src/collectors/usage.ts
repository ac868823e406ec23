import type { ExpositionBlock } from '../metrics/exposition/block.js'
import type { MetricSet } from '../metrics/metric-set.js'
import type { RoundProgressView } from '../scanning/round-progress.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import { writeRoundProgress } from './scan-health.js'
import type { Collector } from './types.js'
import { type UsageCollectorFamilies, usageCollectorFamilies } from './usage-series.js'

/**
 * How long a scrape waits for a new snapshot's rendering before it serves the last one rendered:
 * long enough for a few thousand buckets, so a scrape right after a scan sees its figures.
 */
const RENDERING_GRACE_MS = 250

/** A rendered block and the snapshot it was rendered from. */
export interface ServedBlock {
  readonly snapshot: UsageSnapshot
  readonly block: ExpositionBlock
}

/**
 * What renders the usage families of a snapshot once for every scrape of it: the exposition stage
 * (src/exposition/usage-exposition.ts), handed in by the composition root so that the collector
 * imports nothing above it.
 */
export interface UsageBlocks {
  /**
   * The block to serve for `snapshot`: its own, or while it still renders after `graceMs`, the
   * last one rendered, with its snapshot.
   */
  served(snapshot: UsageSnapshot, graceMs: number): Promise<ServedBlock>
}

export interface UsageCollectorOptions {
  /** The scanner's last completed snapshot; undefined until the first one. */
  readonly snapshot: () => UsageSnapshot | undefined
  /** BUCKETS_SOURCE: the `source` label of the running round's progress. */
  readonly source?: string
  /** The running round's progress; undefined between rounds. */
  readonly progress?: () => RoundProgressView | undefined
  /** Renders each snapshot's families once, for every scrape of it. */
  readonly exposition: UsageBlocks
  /** Injected by tests that pin the clock; Date.now otherwise. */
  readonly now?: () => number
  /** RENDERING_GRACE_MS unless a test says otherwise. */
  readonly graceMs?: number
}

/**
 * Bucket usage and scan health from the scanner's last snapshot. No I/O: a scrape reads what the
 * background scanner published, whole, so it is consistent even while a scan runs. Buckets absent
 * from the snapshot (deleted, filtered out) have no series at all. Everything but the snapshot's
 * age is rendered once per snapshot (UsageExposition) and attached as it is: at 10,000 buckets
 * that is some 400,000 series a scrape does not render again.
 */
export function createUsageCollector(options: UsageCollectorOptions): Collector<UsageCollectorFamilies> {
  const now = options.now ?? Date.now
  return {
    name: 'usage',
    families: usageCollectorFamilies,
    async collect(out: MetricSet<UsageCollectorFamilies>) {
      // Before the first snapshot too: a first scan of a large store is when it is looked at.
      if (options.source !== undefined) writeRoundProgress(out, options.source, options.progress?.())
      const latest = options.snapshot()
      if (!latest) return
      // While a new snapshot renders, the last one rendered is served, and its age with it.
      const { snapshot, block } = await options.exposition.served(
        latest,
        options.graceMs ?? RENDERING_GRACE_MS,
      )
      out.set('usage_snapshot_age_seconds', {}, Math.max(0, now() - snapshot.completedAtMs) / 1000)
      out.attach(block)
    },
  }
}
