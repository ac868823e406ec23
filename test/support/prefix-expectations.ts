import assert from 'node:assert/strict'
import { findSamples, type ParsedExposition, sampleValue } from './exposition.js'

/**
 * What a scrape must show for a bucket's prefixes, computed here from the keys a test wrote,
 * independently of the exporter's code (docs/where-the-bytes-went.md): a key's prefix is its
 * first `depth` parts (fewer if it has fewer) each followed by the delimiter; a key with no
 * delimiter counts under `_root`; the top K by bytes (equal bytes: by prefix) are rows, the rest
 * one `_other` row.
 */
export interface KeyedObject {
  readonly key: string
  readonly size: number
}

export interface PrefixExpectation {
  readonly depth: number
  readonly delimiter: string
  readonly topK: number
}

export function expectedPrefixRows(
  objects: readonly KeyedObject[],
  { depth, delimiter, topK }: PrefixExpectation,
): { rows: Map<string, { bytes: number; objects: number }>; truncated: boolean } {
  const all = new Map<string, { bytes: number; objects: number }>()
  for (const { key, size } of objects) {
    const parts = key.split(delimiter)
    const prefix =
      parts.length === 1
        ? '_root'
        : `${parts.slice(0, Math.min(depth, parts.length - 1)).join(delimiter)}${delimiter}`
    const entry = all.get(prefix) ?? { bytes: 0, objects: 0 }
    entry.bytes += size
    entry.objects++
    all.set(prefix, entry)
  }
  const sorted = [...all].sort(([a, x], [b, y]) => y.bytes - x.bytes || (a < b ? -1 : a > b ? 1 : 0))
  const rows = new Map(sorted.slice(0, topK))
  if (sorted.length > topK) {
    const rest = sorted.slice(topK)
    rows.set('_other', {
      bytes: rest.reduce((sum, [, row]) => sum + row.bytes, 0),
      objects: rest.reduce((sum, [, row]) => sum + row.objects, 0),
    })
  }
  return { rows, truncated: sorted.length > topK }
}

/** The scrape's prefix rows of `bucket`, by prefix. */
export function scrapedPrefixRows(
  scrape: ParsedExposition,
  bucket: string,
  namespace = 'objstore',
): Map<string, { bytes: number; objects: number }> {
  const rows = new Map<string, { bytes: number; objects: number }>()
  for (const sample of findSamples(scrape, `${namespace}_bucket_prefix_usage_total_bytes`, { bucket })) {
    const prefix = sample.labels.prefix as string
    rows.set(prefix, {
      bytes: sample.value,
      objects: sampleValue(scrape, `${namespace}_bucket_prefix_usage_objects`, { bucket, prefix }),
    })
  }
  return rows
}

/** Asserts exact prefix figures (a bucket with no more distinct prefixes than the sketch tracks). */
export function assertPrefixRows(
  scrape: ParsedExposition,
  bucket: string,
  objects: readonly KeyedObject[],
  expectation: PrefixExpectation,
): void {
  const expected = expectedPrefixRows(objects, expectation)
  assert.deepEqual(
    Object.fromEntries(scrapedPrefixRows(scrape, bucket)),
    Object.fromEntries(expected.rows),
    `${bucket}: prefix rows`,
  )
  assert.equal(
    sampleValue(scrape, 'objstore_bucket_prefix_truncated', { bucket }),
    expected.truncated ? 1 : 0,
  )
  assert.equal(sampleValue(scrape, 'objstore_bucket_prefix_error_bytes', { bucket }), 0, `${bucket}: exact`)
}
