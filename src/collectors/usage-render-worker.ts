/**
 * Worker-thread entry that renders the per-bucket usage families of a snapshot (usage-render.ts):
 * buckets arrive in batches and are written as they come, then dropped; each filled buffer of
 * text is compressed at once and let go; at the end the families
 * go back with their memory transferred, not copied.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { type CompressedFamily, compressFamilySync } from '../metrics/exposition/block.js'
import { type DeflatedSegment, deflateSegmentSync } from '../metrics/exposition/gzip.js'
import { type ExpositionNaming, ExpositionWriter } from '../metrics/exposition/writer.js'
import { storedLineRecord } from '../snapshot/stored-records.js'
import type { BudgetOutcome } from './budget-families.js'
import { BudgetedWriter, type PlannedBucket, type SeriesBudget } from './usage-budget.js'
import { usageCollectorFamilies } from './usage-series.js'

export type RenderMessage =
  /** Each bucket planned, or the bytes of a stored record's line (stored-records.ts). */
  | { readonly kind: 'buckets'; readonly records: readonly (PlannedBucket | Uint8Array)[] }
  | { readonly kind: 'end' }

export type RenderReply =
  | {
      readonly ok: true
      readonly families: readonly CompressedFamily[]
      readonly outcome: BudgetOutcome
    }
  | { readonly ok: false; readonly message: string }

const port = parentPort
if (!port) throw new Error('usage-render-worker must run on a worker thread')

const { naming, budget, startSeries } = workerData as {
  naming: string | ExpositionNaming
  budget: SeriesBudget
  startSeries: number
}
const writer = new ExpositionWriter(naming, usageCollectorFamilies)
const buckets = new BudgetedWriter(writer, budget, startSeries)
/** Segments compressed so far, per format and family (OpenMetrics: only where its lines differ). */
const segments = {
  text: new Map<string, DeflatedSegment[]>(),
  openmetrics: new Map<string, DeflatedSegment[]>(),
}
let failure: Error | undefined

function compressFilled(): void {
  for (const format of ['text', 'openmetrics'] as const) {
    for (const [key, chunks] of writer.takeFilledChunks(format)) {
      const done = segments[format].get(key) ?? []
      for (const chunk of chunks) done.push(deflateSegmentSync(chunk))
      segments[format].set(key, done)
    }
  }
}

function finish(): RenderReply {
  compressFilled()
  const families: CompressedFamily[] = []
  for (const family of writer.families()) {
    const last = compressFamilySync(family)
    const openmetrics = last.openmetricsSegments
    families.push({
      ...last,
      segments: [...(segments.text.get(family.key) ?? []), ...last.segments],
      ...(openmetrics
        ? { openmetricsSegments: [...(segments.openmetrics.get(family.key) ?? []), ...openmetrics] }
        : {}),
    })
  }
  return { ok: true, families, outcome: buckets.outcome() }
}

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

port.on('message', (message: RenderMessage) => {
  try {
    if (message.kind === 'buckets') {
      if (failure) return
      for (const record of message.records)
        buckets.write(record instanceof Uint8Array ? storedLineRecord(record) : record)
      compressFilled()
      return
    }
    if (failure) throw failure
    const reply = finish()
    port.postMessage(reply, memoryOf(reply))
  } catch (error) {
    failure ??= error instanceof Error ? error : new Error(String(error))
    if (message.kind === 'end')
      port.postMessage({ ok: false, message: failure.message } satisfies RenderReply)
  }
})
