import { Readable } from 'node:stream'
import { type ExpositionFormat, OPENMETRICS_EOF } from './format.js'
import { type DeflatedSegment, deflateSegment, deflateSegmentSync, gzipMember } from './gzip.js'
import type { ScrapeContent } from './scrape-assembler.js'
import { familyParts } from './writer.js'

/**
 * A response body as buffers to send in order; blocks' buffers are shared, never copied. An
 * uncompressed body is produced as it is sent (a block's text is inflated back segment by segment
 * unless held, block.ts), so a slow reader holds a buffer or two, not the whole text.
 */
export interface ScrapeBody {
  readonly parts: Iterable<Buffer> | AsyncIterable<Buffer>
  readonly byteLength: number
  /** The parts as a stream that takes the next one only when the previous one went out. */
  stream(): Readable
  /**
   * The body as one buffer when it is small and already in memory (a drives-only scrape, or a gzip
   * scrape whose blocks are tiny): one write, no stream. Undefined otherwise: never a copy of blocks.
   */
  whole(): Buffer | undefined
}

/** A body up to this size, already in memory, is joined into one buffer and sent in one write. */
const WHOLE_BODY_BYTES = 64 << 10

const EOF_BUFFER = Buffer.from(OPENMETRICS_EOF, 'utf8')
let eofSegment: Promise<DeflatedSegment> | undefined

/**
 * A scrape's own families up to this size are compressed on the event loop: a few kilobytes take
 * well under a millisecond, less than handing them to the thread pool and back through a stream.
 */
const SYNC_DEFLATE_BYTES = 64 << 10

/**
 * One scrape's body: the families rendered for this scrape, then the blocks rendered before it,
 * then OpenMetrics' `# EOF`. Compressed, it is one gzip member whose only fresh compression is
 * the scrape's own families (a few kilobytes): the blocks' segments were compressed once.
 */
export async function scrapeBody(
  content: ScrapeContent,
  format: ExpositionFormat,
  compress: boolean,
): Promise<ScrapeBody> {
  const head = Buffer.concat(familyParts(content.families, format))
  const eof = format === 'openmetrics'
  if (compress) {
    eofSegment ??= deflateSegment(EOF_BUFFER)
    const [own, blocks, end] = await Promise.all([
      head.length <= SYNC_DEFLATE_BYTES ? deflateSegmentSync(head) : deflateSegment(head),
      Promise.all(content.blocks.map((block) => block.wire(format))),
      eof ? eofSegment : undefined,
    ])
    const parts = gzipMember([own, ...blocks.flat(), ...(end ? [end] : [])])
    return body(
      parts,
      parts.reduce((sum, part) => sum + part.length, 0),
    )
  }
  const blocks = content.blocks
  if (blocks.length === 0)
    return body(eof ? [head, EOF_BUFFER] : [head], head.length + (eof ? EOF_BUFFER.length : 0))
  // A block that failed to compress fails the scrape here, before any header is sent.
  await Promise.all(blocks.map((block) => block.deflated(format)))
  const parts = (async function* () {
    yield head
    for (const block of blocks) yield* block.text(format)
    if (eof) yield EOF_BUFFER
  })()
  const blocksLength = blocks.reduce((sum, block) => sum + block.byteLength(format), 0)
  return body(parts, head.length + blocksLength + (eof ? EOF_BUFFER.length : 0))
}

function body(parts: Iterable<Buffer> | AsyncIterable<Buffer>, byteLength: number): ScrapeBody {
  return {
    parts,
    byteLength,
    // One part read ahead at most (Readable.from's object mode would read 16 ahead: 16 x 256 KB
    // of text per slow reader); the response's own buffer holds the part being sent.
    stream: () => Readable.from(parts, { highWaterMark: 1 }),
    whole: () =>
      Array.isArray(parts) && byteLength <= WHOLE_BODY_BYTES ? Buffer.concat(parts, byteLength) : undefined,
  }
}
