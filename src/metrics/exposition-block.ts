import { promisify } from 'node:util'
import { constants, inflateRaw as inflateRawCallback } from 'node:zlib'
import type { FamilyKey } from './catalogue.js'
import type { ExpositionFormat } from './exposition.js'
import { type DeflatedSegment, deflateSegment, deflateSegmentSync } from './gzip-segments.js'

const inflateRaw = promisify(inflateRawCallback)

/** One family as text: its header lines per format, and its sample lines (the same in both). */
export interface BlockFamily {
  readonly key: FamilyKey
  readonly headers: Readonly<Record<ExpositionFormat, Buffer>>
  readonly chunks: readonly Buffer[]
}

/** One family compressed: its header lines per format, and its sample lines, as deflate segments. */
export interface CompressedFamily {
  readonly key: FamilyKey
  readonly headers: Readonly<Record<ExpositionFormat, DeflatedSegment>>
  readonly segments: readonly DeflatedSegment[]
}

/**
 * How long the uncompressed text is kept after the last scrape that asked for it. Prometheus
 * always asks for gzip, so an exporter it scrapes keeps only the compressed form (at 10,000
 * buckets, 2.5 MB instead of 45 MB); a client without gzip (curl, a script) gets the text kept
 * for its next scrapes.
 */
const TEXT_RETENTION_MS = 5 * 60_000

/** Compresses a family on the calling thread (a worker's, or a family of a few lines). */
export function compressFamilySync(family: BlockFamily, chunks = family.chunks): CompressedFamily {
  const text = deflateSegmentSync(family.headers.text)
  const openmetrics = family.headers.openmetrics.equals(family.headers.text)
    ? text
    : deflateSegmentSync(family.headers.openmetrics)
  return { key: family.key, headers: { text, openmetrics }, segments: chunks.map(deflateSegmentSync) }
}

async function compressFamily(
  family: BlockFamily,
  signal: AbortSignal | undefined,
): Promise<CompressedFamily> {
  const text = await deflateSegment(family.headers.text)
  const openmetrics = family.headers.openmetrics.equals(family.headers.text)
    ? text
    : await deflateSegment(family.headers.openmetrics)
  const segments: DeflatedSegment[] = []
  for (const chunk of family.chunks) {
    signal?.throwIfAborted()
    segments.push(await deflateSegment(chunk))
  }
  return { key: family.key, headers: { text, openmetrics }, segments }
}

/**
 * Families rendered once and served by every scrape as they are, in both formats (the sample lines
 * are shared, only the header lines differ): compressed as deflate segments, ready to be laid
 * into a gzip body next to the scrape's own parts (gzip-segments.ts), and as text while a client
 * without gzip wants it (inflated again from the segments when it was let go).
 */
export class ExpositionBlock {
  /** The families the block holds; a scrape must not render them again. */
  readonly keys: ReadonlySet<FamilyKey>
  readonly #compressed: Promise<readonly CompressedFamily[]>
  readonly #byteLength: Readonly<Record<ExpositionFormat, number>>
  /** Each family's text (header lines per format, sample lines), while held. */
  #text: readonly BlockFamily[] | undefined
  #inflating: Promise<readonly BlockFamily[]> | undefined
  #textWanted = false
  #release: NodeJS.Timeout | undefined

  /**
   * A block from text, compressed here one segment at a time on libuv's pool (so it holds one
   * thread of the pool, never all of them: statfs of the drives runs there too). `keepText`: a
   * client without gzip scraped the snapshot before; otherwise the text goes once compressed.
   */
  static fromText(
    families: readonly BlockFamily[],
    options: { keepText: boolean; signal?: AbortSignal },
  ): ExpositionBlock {
    const compressed = (async () => {
      const done: CompressedFamily[] = []
      for (const family of families) done.push(await compressFamily(family, options.signal))
      return done
    })()
    const lengths = { text: 0, openmetrics: 0 }
    for (const family of families) {
      const body = family.chunks.reduce((sum, chunk) => sum + chunk.length, 0)
      lengths.text += family.headers.text.length + body
      lengths.openmetrics += family.headers.openmetrics.length + body
    }
    return new ExpositionBlock(families, compressed, { ...options, lengths })
  }

  /** A block compressed elsewhere (a worker thread), with its text when it was kept. */
  static fromCompressed(
    families: readonly CompressedFamily[],
    text: readonly BlockFamily[] | undefined,
  ): ExpositionBlock {
    const lengths = { text: 0, openmetrics: 0 }
    for (const family of families) {
      const body = family.segments.reduce((sum, segment) => sum + segment.length, 0)
      lengths.text += family.headers.text.length + body
      lengths.openmetrics += family.headers.openmetrics.length + body
    }
    return new ExpositionBlock(text, Promise.resolve(families), {
      keys: families.map((family) => family.key),
      keepText: text !== undefined,
      lengths,
    })
  }

  private constructor(
    text: readonly BlockFamily[] | undefined,
    compressed: Promise<readonly CompressedFamily[]>,
    options: {
      keepText: boolean
      lengths: Record<ExpositionFormat, number>
      keys?: readonly FamilyKey[]
    },
  ) {
    this.keys = new Set(options.keys ?? text?.map((family) => family.key))
    this.#byteLength = options.lengths
    this.#text = text
    this.#compressed = compressed
    // A failure shows on the scrapes that need the compressed form; nobody else is waiting.
    compressed.catch(() => undefined)
    if (options.keepText) this.#retainText()
    else this.#dropTextOnceCompressed()
  }

  byteLength(format: ExpositionFormat): number {
    return this.#byteLength[format]
  }

  /** Whether a client without gzip scraped this block lately (its successor keeps the text too). */
  get textWanted(): boolean {
    return this.#textWanted
  }

  /** The uncompressed body in `format`, as buffers to send in order (never copied). */
  async parts(format: ExpositionFormat): Promise<readonly Buffer[]> {
    this.#retainText()
    const text = this.#text ?? (await this.#inflate())
    return text.flatMap((family) => [family.headers[format], ...family.chunks])
  }

  /** The body in `format` as deflated segments. */
  async deflated(format: ExpositionFormat): Promise<readonly DeflatedSegment[]> {
    const families = await this.#compressed
    return families.flatMap((family) => [family.headers[format], ...family.segments])
  }

  #retainText(): void {
    this.#textWanted = true
    clearTimeout(this.#release)
    this.#release = setTimeout(() => {
      this.#textWanted = false
      this.#dropTextOnceCompressed()
    }, TEXT_RETENTION_MS)
    this.#release.unref()
  }

  #dropTextOnceCompressed(): void {
    this.#compressed.then(
      () => {
        if (!this.#textWanted) this.#text = undefined
      },
      () => undefined,
    )
  }

  /** The text again from the segments (each a complete, sync-flushed raw deflate stream). */
  #inflate(): Promise<readonly BlockFamily[]> {
    this.#inflating ??= (async () => {
      const text: BlockFamily[] = []
      for (const family of await this.#compressed) {
        const inflate = (segment: DeflatedSegment) =>
          inflateRaw(segment.data, { finishFlush: constants.Z_SYNC_FLUSH })
        const headers = {
          text: await inflate(family.headers.text),
          openmetrics: await inflate(family.headers.openmetrics),
        }
        const chunks: Buffer[] = []
        for (const segment of family.segments) chunks.push(await inflate(segment))
        text.push({ key: family.key, headers, chunks })
      }
      if (this.#textWanted) this.#text = text
      return text
    })().finally(() => {
      this.#inflating = undefined
    })
    return this.#inflating
  }
}
