import { setImmediate as nextTurn } from 'node:timers/promises'
import { type BudgetOutcome, writeBudgetOutcome } from '../collectors/budget-families.js'
import { UsageTotals, usageCollectorFamilies, writeSnapshotTotals } from '../collectors/usage-series.js'
import { Slices } from '../event-loop-slices.js'
import { type CompressedFamily, compressFamilySync, ExpositionBlock } from '../metrics/exposition/block.js'
import type { DeflatedSegment } from '../metrics/exposition/gzip.js'
import { type ExpositionNaming, ExpositionWriter } from '../metrics/exposition/writer.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import { figuresOf, storedLine } from '../snapshot/stored-records.js'
import { BudgetedWriter, NO_BUDGET, planBuckets, type SeriesBudget, SeriesCounter } from './usage-budget.js'
import type { RenderThread } from './usage-render-thread.js'

/** Up to this many buckets (a few milliseconds of work) are rendered on the spot. */
const INLINE_BUCKETS = 200
/** Buckets sent to the worker per message: a millisecond or two of cloning on the event loop each. */
const BATCH_BUCKETS = 250

export interface RenderOptions {
  readonly signal: AbortSignal
  /** The worker thread large snapshots are rendered on, kept from one snapshot to the next. */
  readonly thread: RenderThread
  /** BUCKET_METRICS, BUCKETS_TOP_N, MAX_SERIES; none by default. */
  readonly budget?: SeriesBudget
  /** Told how the rendering fared under MAX_SERIES (when set); answers the hits counted so far. */
  readonly onOutcome?: (outcome: BudgetOutcome) => number
}

/**
 * Renders the usage families of `snapshot` into an ExpositionBlock. A large snapshot (10,000
 * buckets: 500,000 series, 45 MB of text, some 0.4 s of work and as much of compression) is
 * rendered and compressed on the worker thread `thread` (one for the process's life, not one per
 * snapshot: docs/faults.md): the event loop only hands the buckets over in batches and receives the compressed segments
 * (2.5 MB, transferred, not copied). The worker compresses as it renders, so the whole text is
 * never held anywhere, and the garbage of rendering is collected on the worker's
 * heap: neither work nor garbage collection holds up a scrape.
 */
export async function renderUsageBlock(
  snapshot: UsageSnapshot,
  naming: string | ExpositionNaming,
  options: RenderOptions,
): Promise<ExpositionBlock> {
  const { signal } = options
  // A turn of the event loop first: the snapshot is published (handed to listeners) in
  // one turn and the rendering set up (planned, totals summed over every bucket) in another, so
  // at 100,000 buckets neither adds to the other's block.
  await nextTurn()
  signal.throwIfAborted()
  const budget = options.budget ?? NO_BUDGET
  const planned = await planBuckets(snapshot.buckets, budget)
  // The snapshot-wide series first (a few lines): the ceiling counts them before any bucket's.
  const totalsWriter = new ExpositionWriter(naming, usageCollectorFamilies)
  const totalsCounter = new SeriesCounter(usageCollectorFamilies, totalsWriter, undefined)
  // Summed in slices: at 100,000 buckets the sums are some 100 ms of work.
  const sums = new UsageTotals()
  const slices = new Slices()
  for (const record of snapshot.buckets) {
    const usage = figuresOf(record)
    if (usage) sums.add(usage)
    if (slices.due) {
      await slices.next()
      signal.throwIfAborted()
    }
  }
  writeSnapshotTotals(totalsCounter, snapshot, sums)
  const outcomeOf = (outcome: BudgetOutcome, out: ExpositionWriter<typeof usageCollectorFamilies>) => {
    if (budget.maxSeries > 0) {
      writeBudgetOutcome(out, budget.maxSeries, outcome, options.onOutcome?.(outcome) ?? 0)
    }
  }
  if (planned.length <= INLINE_BUCKETS) {
    const buckets = new BudgetedWriter(totalsWriter, budget, totalsCounter.series)
    for (const row of planned) buckets.write(row)
    outcomeOf(buckets.outcome(), totalsWriter)
    return ExpositionBlock.fromText(totalsWriter.families(), options)
  }
  // The buckets' series on the worker.
  const totals = totalsWriter.families()
  const rendering = options.thread.begin(naming, budget, totalsCounter.series)
  const stop = () => rendering.drop(signal.reason)
  signal.addEventListener('abort', stop, { once: true })
  try {
    for (let start = 0; start < planned.length; start += BATCH_BUCKETS) {
      // A record still held as its state file line goes as those bytes, decoded on the worker:
      // decoding and cloning its figures here cost the event loop ~40 µs a bucket.
      const records = planned.slice(start, start + BATCH_BUCKETS).map((row) => {
        const line = 'kind' in row ? undefined : storedLine(row)
        return line ? new Uint8Array(line) : withoutSubtotals(row)
      })
      rendering.post(records)
      await nextTurn()
      signal.throwIfAborted()
    }
    const reply = await rendering.end()
    if (!reply.ok) throw new Error(`rendering the usage families failed: ${reply.message}`)
    const outcomeWriter = new ExpositionWriter(naming, usageCollectorFamilies)
    outcomeOf(reply.outcome, outcomeWriter)
    const compressed = merge(
      [...totals, ...outcomeWriter.families()].map((family) => compressFamilySync(family)),
      reply.families.map(compressedBuffers),
    )
    return ExpositionBlock.fromCompressed(compressed)
  } catch (error) {
    rendering.drop(error)
    throw error
  } finally {
    signal.removeEventListener('abort', stop)
  }
}

/** Two sets of distinct families as one, in declaration order. */
function merge<T extends { readonly key: string }>(a: readonly T[], b: readonly T[]): T[] {
  const order = new Map<string, number>(Object.keys(usageCollectorFamilies).map((key, index) => [key, index]))
  const merged = [...a, ...b].sort((x, y) => (order.get(x.key) ?? 0) - (order.get(y.key) ?? 0))
  if (new Set(merged.map((family) => family.key)).size !== merged.length) {
    throw new Error('a usage family was rendered twice')
  }
  return merged
}

/** Buffers arrive from the worker as plain Uint8Arrays over the transferred memory. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
const asSegment = (segment: DeflatedSegment): DeflatedSegment => ({
  ...segment,
  data: asBuffer(segment.data),
})

function compressedBuffers(family: CompressedFamily): CompressedFamily {
  return {
    key: family.key,
    headers: { text: asSegment(family.headers.text), openmetrics: asSegment(family.headers.openmetrics) },
    segments: family.segments.map(asSegment),
    ...(family.openmetricsSegments ? { openmetricsSegments: family.openmetricsSegments.map(asSegment) } : {}),
  }
}

/** A record as the worker needs it: its range summary, not the subtotals (a partial record a range). */
function withoutSubtotals<T extends object>(row: T): T {
  if (!('subtotals' in row)) return row
  const { subtotals: _left, ...rest } = row as T & { subtotals: unknown }
  return rest as T
}
