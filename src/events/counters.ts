import { REFUSAL_REASONS, type RefusalReason } from './types.js'

/** What the endpoint counted since start: the events_* families read it at scrape time. */
export interface EventCounts {
  /** Records in deliveries that were read (authorized, within bounds, a document). */
  readonly received: number
  /** Records handed to the change listener. */
  readonly applied: number
  /** Records refused, by reason; a delivery refused whole (unauthorized, too large, malformed) counts once. */
  readonly refused: ReadonlyMap<RefusalReason, number>
}

/** The counters, every reason present from the start (0), so a rate has both sides. */
export class EventCounters {
  #received = 0
  #applied = 0
  readonly #refused = new Map<RefusalReason, number>(REFUSAL_REASONS.map((reason) => [reason, 0]))

  received(count: number): void {
    this.#received += count
  }

  applied(): void {
    this.#applied += 1
  }

  refused(reason: RefusalReason, count = 1): void {
    this.#refused.set(reason, (this.#refused.get(reason) ?? 0) + count)
  }

  counts(): EventCounts {
    return { received: this.#received, applied: this.#applied, refused: new Map(this.#refused) }
  }
}
