import { REFUSAL_REASONS, type RefusalReason } from './types.js'

/**
 * The refusals a record naming a measured bucket can have: its key unreadable (invalid_record) or
 * its event one that changes no listing (not_a_change). The others concern a whole delivery, or a
 * bucket the exporter does not measure, whose name a sender chose.
 */
const BUCKET_REFUSAL_REASONS = ['invalid_record', 'not_a_change'] as const satisfies readonly RefusalReason[]

type BucketRefusalReason = (typeof BUCKET_REFUSAL_REASONS)[number]

/** One bucket's records since start. */
export interface BucketEventCounts {
  received: number
  applied: number
  readonly refused: Map<BucketRefusalReason, number>
}

/** What the endpoint counted since start: the events_* families read it at scrape time. */
export interface EventCounts {
  /** Records in deliveries that were read (authorized, within bounds, a document). */
  readonly received: number
  /** Records handed to the change listener. */
  readonly applied: number
  /** Records refused, by reason; a delivery refused whole (unauthorized, too large, malformed) counts once. */
  readonly refused: ReadonlyMap<RefusalReason, number>
  /**
   * The same per bucket, for the buckets measured when their records came (never a name only a
   * sender chose): at most one entry a bucket the exporter measured since start.
   */
  readonly buckets: ReadonlyMap<string, Readonly<BucketEventCounts>>
}

function isBucketReason(reason: RefusalReason): reason is BucketRefusalReason {
  return (BUCKET_REFUSAL_REASONS as readonly RefusalReason[]).includes(reason)
}

/** The counters, every reason present from the start (0), so a rate has both sides. */
export class EventCounters {
  #received = 0
  #applied = 0
  readonly #refused = new Map<RefusalReason, number>(REFUSAL_REASONS.map((reason) => [reason, 0]))
  readonly #buckets = new Map<string, BucketEventCounts>()

  received(count: number): void {
    this.#received += count
  }

  applied(): void {
    this.#applied += 1
  }

  refused(reason: RefusalReason, count = 1): void {
    this.#refused.set(reason, (this.#refused.get(reason) ?? 0) + count)
  }

  /** A record of a measured bucket (counted above too): received, then applied or refused. */
  inBucket(bucket: string, outcome: 'applied' | RefusalReason): void {
    if (outcome !== 'applied' && !isBucketReason(outcome)) return
    let counts = this.#buckets.get(bucket)
    if (!counts) {
      counts = {
        received: 0,
        applied: 0,
        refused: new Map(BUCKET_REFUSAL_REASONS.map((reason) => [reason, 0])),
      }
      this.#buckets.set(bucket, counts)
    }
    counts.received += 1
    if (outcome === 'applied') counts.applied += 1
    else counts.refused.set(outcome, (counts.refused.get(outcome) ?? 0) + 1)
  }

  counts(): EventCounts {
    return {
      received: this.#received,
      applied: this.#applied,
      refused: new Map(this.#refused),
      buckets: this.#buckets,
    }
  }
}
