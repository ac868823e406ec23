import { promisify } from 'node:util'
import { constants, inflateRaw as inflateRawCallback } from 'node:zlib'
import type { ExpositionFormat } from './format.js'
import { type DeflatedSegment, deflateSegment, deflateSegmentSync, joinSegments } from './gzip.js'

const inflateRaw = promisify(inflateRawCallback)

/** Deflated bytes per buffer of a gzip body's cached part (ExpositionBlock.wire). */
export const WIRE_PART_BYTES = 256 << 10

/**
 * One family as text: its header lines per format, and its sample lines: the same in both formats
 * but for a gauge histogram's, whose OpenMetrics lines (`_gsum`/`_gcount`) are `openmetricsChunks`.
 */
export interface BlockFamily {
  readonly key: string
  readonly headers: Readonly<Record<ExpositionFormat, Buffer>>
  readonly chunks: readonly Buffer[]
  readonly openmetricsChunks?: readonly Buffer[]
}

/** One family compressed: its header lines per format, and its sample lines, as deflate segments. */
export interface CompressedFamily {
  readonly key: string
  readonly headers: Readonly<Record<ExpositionFormat, DeflatedSegment>>
  readonly segments: readonly DeflatedSegment[]
  readonly openmetricsSegments?: readonly DeflatedSegment[]
}

/** A family's sample lines in `format`. */
export function chunksIn(family: BlockFamily, format: ExpositionFormat): readonly Buffer[] {
  return (format === 'openmetrics' && family.openmetricsChunks) || family.chunks
}

/** A compressed family's sample segments in `format`. */
function segmentsIn(family: CompressedFamily, format: ExpositionFormat): readonly DeflatedSegment[] {
  return (format === 'openmetrics' && family.openmetricsSegments) || family.segments
}

/** The bytes of a family's header and sample lines in `format`. */
function familyLength(
  family: { readonly headers: Readonly<Record<ExpositionFormat, { readonly length: number }>> },
  samples: readonly { readonly length: number }[],
  format: ExpositionFormat,
): number {
  return samples.reduce((sum, part) => sum + part.length, family.headers[format].length)
}

/**
 * How long the one text held (see HeldText) stays after the last plain read that used it. A client
 * without gzip scraping every few seconds reads it from memory; the text goes soon after it stops.
 */
const TEXT_IDLE_MS = 30_000

/**
 * The one uncompressed text the process holds: that of the current block a client without gzip
 * read last, each segment's inflated bytes by segment. Prometheus always asks for gzip, so most
 * exporters never hold one. Held process-wide, not per block, so that however many snapshots,
 * blocks or readers there are, at most one text is alive (plus one being inflated): a new one
 * replaces it, a block retired (its snapshot replaced) or TEXT_IDLE_MS without a plain read
 * drops it. Readers never keep a reference to it (only to the buffer they are sending), so a
 * slow reader pins no text: it goes on inflating its block's segments one at a time.
 */
interface HeldText {
  readonly block: ExpositionBlock
  readonly text: ReadonlyMap<DeflatedSegment, Buffer>
  readonly idle: NodeJS.Timeout
}

let held: HeldText | undefined

function dropHeldText(): void {
  if (held) clearTimeout(held.idle)
  held = undefined
}

function inflateSegment(segment: DeflatedSegment): Promise<Buffer> {
  return inflateRaw(segment.data, { finishFlush: constants.Z_SYNC_FLUSH })
}

/** Compresses a family on the calling thread (a worker's, or a family of a few lines). */
export function compressFamilySync(family: BlockFamily): CompressedFamily {
  const text = deflateSegmentSync(family.headers.text)
  const openmetrics = family.headers.openmetrics.equals(family.headers.text)
    ? text
    : deflateSegmentSync(family.headers.openmetrics)
  return {
    key: family.key,
    headers: { text, openmetrics },
    segments: family.chunks.map(deflateSegmentSync),
    ...(family.openmetricsChunks
      ? { openmetricsSegments: family.openmetricsChunks.map(deflateSegmentSync) }
      : {}),
  }
}

async function compressFamily(
  family: BlockFamily,
  signal: AbortSignal | undefined,
): Promise<CompressedFamily> {
  const text = await deflateSegment(family.headers.text)
  const openmetrics = family.headers.openmetrics.equals(family.headers.text)
    ? text
    : await deflateSegment(family.headers.openmetrics)
  const deflateAll = async (chunks: readonly Buffer[]) => {
    const segments: DeflatedSegment[] = []
    for (const chunk of chunks) {
      signal?.throwIfAborted()
      segments.push(await deflateSegment(chunk))
    }
    return segments
  }
  const segments = await deflateAll(family.chunks)
  return {
    key: family.key,
    headers: { text, openmetrics },
    segments,
    ...(family.openmetricsChunks ? { openmetricsSegments: await deflateAll(family.openmetricsChunks) } : {}),
  }
}

/**
 * Families rendered once and served by every scrape as they are, in both formats (the sample lines
 * are shared, only the header lines differ): compressed as deflate segments, ready to be laid
 * into a gzip body next to the scrape's own parts (gzip.ts). The text a client without
 * gzip asks for is inflated back from the segments (HeldText above: one text at most, whatever
 * the clients).
 */
export class ExpositionBlock {
  /** The families the block holds; a scrape must not render them again. */
  readonly keys: ReadonlySet<string>
  readonly #compressed: Promise<readonly CompressedFamily[]>
  readonly #byteLength: Readonly<Record<ExpositionFormat, number>>
  #inflating: Promise<ReadonlyMap<DeflatedSegment, Buffer>> | undefined
  readonly #wire: Partial<Record<ExpositionFormat, Promise<readonly DeflatedSegment[]>>> = {}
  #retired = false

  /**
   * A block from text, compressed here one segment at a time on libuv's pool (so it holds one
   * thread of the pool, never all of them: statfs of the drives runs there too). The text goes
   * once compressed.
   */
  static fromText(families: readonly BlockFamily[], options: { signal?: AbortSignal } = {}): ExpositionBlock {
    const compressed = (async () => {
      const done: CompressedFamily[] = []
      for (const family of families) done.push(await compressFamily(family, options.signal))
      return done
    })()
    const lengths = { text: 0, openmetrics: 0 }
    for (const family of families) {
      lengths.text += familyLength(family, chunksIn(family, 'text'), 'text')
      lengths.openmetrics += familyLength(family, chunksIn(family, 'openmetrics'), 'openmetrics')
    }
    return new ExpositionBlock(
      families.map((family) => family.key),
      compressed,
      lengths,
    )
  }

  /** A block compressed elsewhere (a worker thread). */
  static fromCompressed(families: readonly CompressedFamily[]): ExpositionBlock {
    const lengths = { text: 0, openmetrics: 0 }
    for (const family of families) {
      lengths.text += familyLength(family, segmentsIn(family, 'text'), 'text')
      lengths.openmetrics += familyLength(family, segmentsIn(family, 'openmetrics'), 'openmetrics')
    }
    return new ExpositionBlock(
      families.map((family) => family.key),
      Promise.resolve(families),
      lengths,
    )
  }

  private constructor(
    keys: readonly string[],
    compressed: Promise<readonly CompressedFamily[]>,
    lengths: Record<ExpositionFormat, number>,
  ) {
    this.keys = new Set(keys)
    this.#byteLength = lengths
    this.#compressed = compressed
    // A failure shows on the scrapes that need the compressed form; nobody else is waiting.
    compressed.catch(() => undefined)
  }

  byteLength(format: ExpositionFormat): number {
    return this.#byteLength[format]
  }

  /**
   * The uncompressed body in `format`, buffer by buffer, for a client without gzip: from the text
   * held while this block is current, otherwise inflated one segment at a time as the reader
   * takes them (a reader holds only the buffer it is sending, never the whole text).
   */
  async *text(format: ExpositionFormat): AsyncGenerator<Buffer> {
    const segments = await this.deflated(format)
    await this.#holdText()
    for (const segment of segments) {
      yield (held?.block === this ? held.text.get(segment) : undefined) ?? (await inflateSegment(segment))
    }
  }

  /** The body in `format` as deflated segments. */
  async deflated(format: ExpositionFormat): Promise<readonly DeflatedSegment[]> {
    const families = await this.#compressed
    return families.flatMap((family) => [family.headers[format], ...segmentsIn(family, format)])
  }

  /**
   * The same bytes for a gzip body: the segments joined once per format into parts of about
   * WIRE_PART_BYTES (made on the first gzip scrape in that format, then shared). Sending the
   * segments as they are cost a write (and its stream bookkeeping) per 9 KB: ~290 per scrape at
   * 10,000 buckets, the garbage that, at a few hundred scrapes a second, grew the resident set.
   */
  wire(format: ExpositionFormat): Promise<readonly DeflatedSegment[]> {
    this.#wire[format] ??= this.deflated(format).then((segments) => joinSegments(segments, WIRE_PART_BYTES))
    return this.#wire[format]
  }

  /**
   * The block's snapshot was replaced: its text is dropped if held and never held again (readers
   * still sending it inflate as they go).
   */
  retire(): void {
    this.#retired = true
    if (held?.block === this) dropHeldText()
  }

  /** Makes this block's text the one held (inflated once, shared by every plain reader). */
  async #holdText(): Promise<void> {
    if (this.#retired) return
    if (held?.block === this) {
      held.idle.refresh()
      return
    }
    this.#inflating ??= this.#inflateAll().finally(() => {
      this.#inflating = undefined
    })
    const text = await this.#inflating
    if (this.#retired || held?.block === this) return
    dropHeldText()
    const idle = setTimeout(dropHeldText, TEXT_IDLE_MS)
    idle.unref()
    held = { block: this, text, idle }
  }

  /** The text again from the segments (each a complete, sync-flushed raw deflate stream). */
  async #inflateAll(): Promise<ReadonlyMap<DeflatedSegment, Buffer>> {
    const text = new Map<DeflatedSegment, Buffer>()
    for (const family of await this.#compressed) {
      for (const segment of [
        family.headers.text,
        family.headers.openmetrics,
        ...family.segments,
        ...(family.openmetricsSegments ?? []),
      ]) {
        if (!text.has(segment)) text.set(segment, await inflateSegment(segment))
      }
    }
    return text
  }
}
