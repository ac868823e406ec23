import type { FamilyKey } from './catalogue.js'
import type { ExpositionFormat } from './exposition.js'
import { type DeflatedSegment, deflateSegment } from './gzip-segments.js'

/** One family of a block: its header lines per format, and its sample lines (the same in both). */
export interface BlockFamily {
  readonly key: FamilyKey
  readonly headers: Readonly<Record<ExpositionFormat, Buffer>>
  readonly chunks: readonly Buffer[]
}

const FORMATS: readonly ExpositionFormat[] = ['text', 'openmetrics']

/**
 * Families rendered once and served by every scrape as they are: the body in both formats (the
 * sample lines are shared, only the header lines differ) and its deflated segments, ready to be
 * laid into a gzip body next to the scrape's own parts (gzip-segments.ts). Immutable once built.
 */
export class ExpositionBlock {
  /** The families the block holds; a scrape must not render them again. */
  readonly keys: ReadonlySet<FamilyKey>
  readonly #parts: Readonly<Record<ExpositionFormat, readonly Buffer[]>>
  readonly #byteLength: Readonly<Record<ExpositionFormat, number>>
  readonly #families: readonly BlockFamily[]
  #deflated: Promise<Record<ExpositionFormat, DeflatedSegment[]>> | undefined

  constructor(families: readonly BlockFamily[]) {
    this.#families = families
    this.keys = new Set(families.map((family) => family.key))
    const parts = { text: [] as Buffer[], openmetrics: [] as Buffer[] }
    for (const format of FORMATS) {
      for (const family of families) parts[format].push(family.headers[format], ...family.chunks)
    }
    this.#parts = parts
    this.#byteLength = {
      text: parts.text.reduce((sum, part) => sum + part.length, 0),
      openmetrics: parts.openmetrics.reduce((sum, part) => sum + part.length, 0),
    }
  }

  /** The uncompressed body in `format`, as buffers to send in order (never copied). */
  parts(format: ExpositionFormat): readonly Buffer[] {
    return this.#parts[format]
  }

  byteLength(format: ExpositionFormat): number {
    return this.#byteLength[format]
  }

  /**
   * The body in `format` as deflated segments. Compressed once, on first demand (the renderer asks
   * right away so the first gzip scrape finds it ready): one part at a time, so compression holds
   * one thread of libuv's pool, never all of them (statfs of the drives runs there too).
   */
  deflated(format: ExpositionFormat, signal?: AbortSignal): Promise<readonly DeflatedSegment[]> {
    this.#deflated ??= this.#deflateAll(signal)
    return this.#deflated.then((segments) => segments[format])
  }

  async #deflateAll(signal: AbortSignal | undefined): Promise<Record<ExpositionFormat, DeflatedSegment[]>> {
    const segments = { text: [] as DeflatedSegment[], openmetrics: [] as DeflatedSegment[] }
    for (const family of this.#families) {
      const text = await deflateSegment(family.headers.text)
      const openmetrics = family.headers.openmetrics.equals(family.headers.text)
        ? text
        : await deflateSegment(family.headers.openmetrics)
      const bodies: DeflatedSegment[] = []
      for (const chunk of family.chunks) {
        signal?.throwIfAborted()
        bodies.push(await deflateSegment(chunk))
      }
      segments.text.push(text, ...bodies)
      segments.openmetrics.push(openmetrics, ...bodies)
    }
    return segments
  }
}
