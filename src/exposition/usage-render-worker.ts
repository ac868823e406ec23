/**
 * Worker-thread entry that renders the per-bucket usage families of snapshots (usage-render.ts,
 * usage-render-thread.ts): one thread for the process's life, several renderings in it at once,
 * each by its id. Buckets arrive in batches and are written as they come, then dropped; each
 * filled buffer of text is compressed at once and let go; at the end the families go back with
 * their memory transferred, not copied, and the rendering is forgotten. An `exit` message closes
 * the port, so the thread ends by itself, never terminated.
 */
import { parentPort } from 'node:worker_threads'
import type { BudgetOutcome } from '../collectors/budget-families.js'
import { usageCollectorFamilies } from '../collectors/usage-series.js'
import { type CompressedFamily, compressFamilySync } from '../metrics/exposition/block.js'
import { type DeflatedSegment, deflateSegmentSync } from '../metrics/exposition/gzip.js'
import { type ExpositionNaming, ExpositionWriter } from '../metrics/exposition/writer.js'
import { storedLineRecord } from '../snapshot/stored-records.js'
import { BudgetedWriter, type PlannedBucket, type SeriesBudget } from './usage-budget.js'

export type RenderMessage =
  | {
      readonly kind: 'begin'
      readonly id: number
      readonly naming: string | ExpositionNaming
      readonly budget: SeriesBudget
      /** Series the snapshot-wide families already count against MAX_SERIES. */
      readonly startSeries: number
    }
  /** Each bucket planned, or the bytes of a stored record's line (stored-records.ts). */
  | {
      readonly kind: 'buckets'
      readonly id: number
      readonly records: readonly (PlannedBucket | Uint8Array)[]
    }
  /** The last batch was sent: answer with the families. */
  | { readonly kind: 'end'; readonly id: number }
  /** The rendering was abandoned: forget it. */
  | { readonly kind: 'drop'; readonly id: number }
  | { readonly kind: 'exit' }

export type RenderReply = { readonly id: number } & (
  | {
      readonly ok: true
      readonly families: readonly CompressedFamily[]
      readonly outcome: BudgetOutcome
    }
  | { readonly ok: false; readonly message: string }
)

/** One snapshot's rendering in progress. */
class Rendering {
  readonly #writer: ExpositionWriter<typeof usageCollectorFamilies>
  readonly #buckets: BudgetedWriter
  /** Segments compressed so far, per format and family (OpenMetrics: only where its lines differ). */
  readonly #segments = {
    text: new Map<string, DeflatedSegment[]>(),
    openmetrics: new Map<string, DeflatedSegment[]>(),
  }
  failure: Error | undefined

  constructor(naming: string | ExpositionNaming, budget: SeriesBudget, startSeries: number) {
    this.#writer = new ExpositionWriter(naming, usageCollectorFamilies)
    this.#buckets = new BudgetedWriter(this.#writer, budget, startSeries)
  }

  write(records: readonly (PlannedBucket | Uint8Array)[]): void {
    for (const record of records)
      this.#buckets.write(record instanceof Uint8Array ? storedLineRecord(record) : record)
    this.#compressFilled()
  }

  #compressFilled(): void {
    for (const format of ['text', 'openmetrics'] as const) {
      for (const [key, chunks] of this.#writer.takeFilledChunks(format)) {
        const done = this.#segments[format].get(key) ?? []
        for (const chunk of chunks) done.push(deflateSegmentSync(chunk))
        this.#segments[format].set(key, done)
      }
    }
  }

  finish(id: number): RenderReply {
    this.#compressFilled()
    const families: CompressedFamily[] = []
    for (const family of this.#writer.families()) {
      const last = compressFamilySync(family)
      const openmetrics = last.openmetricsSegments
      families.push({
        ...last,
        segments: [...(this.#segments.text.get(family.key) ?? []), ...last.segments],
        ...(openmetrics
          ? { openmetricsSegments: [...(this.#segments.openmetrics.get(family.key) ?? []), ...openmetrics] }
          : {}),
      })
    }
    return { id, ok: true, families, outcome: this.#buckets.outcome() }
  }
}

const port = parentPort
if (!port) throw new Error('usage-render-worker must run on a worker thread')

/** Every ArrayBuffer under the reply's buffers, to transfer rather than copy. */
function memoryOf(reply: RenderReply): ArrayBuffer[] {
  if (!reply.ok) return []
  const memory = new Set<ArrayBuffer>()
  for (const family of reply.families) {
    for (const segment of [
      family.headers.text,
      family.headers.openmetrics,
      ...family.segments,
      ...(family.openmetricsSegments ?? []),
    ]) {
      memory.add(segment.data.buffer as ArrayBuffer)
    }
  }
  return [...memory]
}

/** Renderings in progress, by id. */
const renderings = new Map<number, Rendering>()

port.on('message', (message: RenderMessage) => {
  if (message.kind === 'exit') {
    renderings.clear()
    port.close()
    return
  }
  const { id } = message
  if (message.kind === 'begin') {
    renderings.set(id, new Rendering(message.naming, message.budget, message.startSeries))
    return
  }
  const rendering = renderings.get(id)
  if (message.kind === 'drop' || !rendering) {
    renderings.delete(id)
    return
  }
  try {
    if (message.kind === 'buckets') {
      if (!rendering.failure) rendering.write(message.records)
      return
    }
    renderings.delete(id)
    if (rendering.failure) throw rendering.failure
    const reply = rendering.finish(id)
    port.postMessage(reply, memoryOf(reply))
  } catch (error) {
    rendering.failure ??= error instanceof Error ? error : new Error(String(error))
    if (message.kind === 'end')
      port.postMessage({ id, ok: false, message: rendering.failure.message } satisfies RenderReply)
  }
})
