import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { catalogue } from '../../src/collectors/catalogue.js'
import { UsageExposition } from '../../src/exposition/usage-exposition.js'
import { WIRE_PART_BYTES } from '../../src/metrics/exposition/block.js'
import { scrapeBody } from '../../src/metrics/exposition/body.js'
import {
  deflateSegment,
  deflateSegmentSync,
  gzipMember,
  joinSegments,
} from '../../src/metrics/exposition/gzip.js'
import { renderScrape } from '../../src/metrics/exposition/scrape-assembler.js'
import { MetricSet } from '../../src/metrics/metric-set.js'
import { generateSnapshot } from '../support/usage-snapshots.js'

test('segments joined into parts make the same gzip body, each part within the bound unless one segment is larger', async () => {
  // Text that compresses a little (hex of random bytes), in pieces of varied size, empty ones too.
  const texts = Array.from({ length: 60 }, (_, index) =>
    index % 13 === 5 ? Buffer.alloc(0) : Buffer.from(randomBytes(500 + index * 97).toString('hex')),
  )
  const segments = await Promise.all(texts.map((text) => deflateSegment(text)))
  const bound = 32 << 10
  const joined = joinSegments(segments, bound)
  assert.ok(joined.length < segments.length / 3, `${joined.length} parts of ${segments.length}`)
  for (const part of joined) {
    const alone = segments.find((segment) => segment.data === part.data)
    assert.ok(part.data.length <= bound || alone !== undefined, 'only a lone segment exceeds the bound')
  }
  const whole = Buffer.concat(texts)
  assert.equal(gunzipSync(Buffer.concat(gzipMember(joined))).toString('latin1'), whole.toString('latin1'))
  assert.equal(
    joined.reduce((sum, part) => sum + part.length, 0),
    whole.length,
  )
  assert.deepEqual(joinSegments([], bound), [])
})

test('a gzip scrape of a large block sends a few shared buffers, not a write per segment', async () => {
  const { snapshot } = generateSnapshot({
    buckets: Array.from({ length: 2000 }, (_, index) => `bucket-${String(index).padStart(5, '0')}`),
    objectsPerBucket: 8,
  })
  const block = await new UsageExposition('objstore').blockFor(snapshot)
  const own = new MetricSet(catalogue)
  own.set('exporter_build_info', { version: '1.2.3', node_version: 'v20' }, 1)
  own.attach(block)
  const content = renderScrape(own, 'objstore')
  for (const format of ['text', 'openmetrics'] as const) {
    const segments = await block.deflated(format)
    const deflatedBytes = segments.reduce((sum, segment) => sum + segment.data.length, 0)
    assert.ok(segments.length > 100, `${segments.length} segments`)
    const first = await scrapeBody(content, format, true)
    const parts = [...(first.parts as Iterable<Buffer>)]
    // gzip header, the scrape's own families, the block's parts, the OpenMetrics end, the trailer.
    assert.ok(parts.length <= Math.ceil(deflatedBytes / WIRE_PART_BYTES) + 5, `${parts.length} parts`)
    const plain = Buffer.concat(await collectAll((await scrapeBody(content, format, false)).parts))
    assert.equal(gunzipSync(Buffer.concat(parts)).toString('utf8'), plain.toString('utf8'))
    // The joined parts are made once per block and format, then shared by every scrape.
    const second = [...((await scrapeBody(content, format, true)).parts as Iterable<Buffer>)]
    const shared = parts.filter((part) => second.includes(part))
    assert.ok(shared.length >= parts.length - 3, 'block parts shared between scrapes')
  }
})

test("a short deflate result keeps only its own bytes, not zlib's 16 KB output chunk", () => {
  const segment = deflateSegmentSync(
    Buffer.from('# HELP objstore_up Whether the source answered.\n'.repeat(20)),
  )
  assert.ok(segment.data.length < 200)
  assert.ok(
    segment.data.buffer.byteLength < 16 << 10,
    `backing store ${segment.data.buffer.byteLength} bytes`,
  )
})

async function collectAll(parts: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<Buffer[]> {
  const buffers: Buffer[] = []
  for await (const part of parts) buffers.push(part)
  return buffers
}
