import { type ExpositionFormat, OPENMETRICS_EOF, renderFamilies } from './exposition.js'
import { type DeflatedSegment, deflateSegment, gzipMember } from './gzip-segments.js'
import type { ScrapeContent } from './registry.js'

/** A response body as buffers to send in order; blocks' buffers are shared, never copied. */
export interface ScrapeBody {
  readonly parts: readonly Buffer[]
  readonly byteLength: number
}

const EOF_BUFFER = Buffer.from(OPENMETRICS_EOF, 'utf8')
let eofSegment: Promise<DeflatedSegment> | undefined

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
  const head = Buffer.from(renderFamilies(content.families, format), 'utf8')
  const eof = format === 'openmetrics'
  let parts: Buffer[]
  if (compress) {
    eofSegment ??= deflateSegment(EOF_BUFFER)
    const [own, blocks, end] = await Promise.all([
      deflateSegment(head),
      Promise.all(content.blocks.map((block) => block.deflated(format))),
      eof ? eofSegment : undefined,
    ])
    parts = gzipMember([own, ...blocks.flat(), ...(end ? [end] : [])])
  } else {
    const blocks = await Promise.all(content.blocks.map((block) => block.parts(format)))
    parts = [head, ...blocks.flat(), ...(eof ? [EOF_BUFFER] : [])]
  }
  return { parts, byteLength: parts.reduce((sum, part) => sum + part.length, 0) }
}
