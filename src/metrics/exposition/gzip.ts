import { promisify } from 'node:util'
import { constants, crc32, deflateRaw as deflateRawCallback, deflateRawSync } from 'node:zlib'

const deflateRaw = promisify(deflateRawCallback)

/**
 * One gzip body out of parts compressed at different times, as pigz builds one: every part is a raw
 * deflate stream ended by a sync flush (byte-aligned, no final block, no reference to earlier
 * data), so parts can be laid end to end between one gzip header and one trailer whose CRC-32 is
 * combined from the parts' own. The result is a single gzip member: curl --compressed and browsers
 * decode only the first member of a multi-member body, so concatenated gzip files would be cut
 * short for them (Go's and Node's readers would not mind).
 */
export interface DeflatedSegment {
  /** Raw deflate data ending with a sync flush. */
  readonly data: Buffer
  /** CRC-32 of the uncompressed bytes. */
  readonly crc: number
  /** Length of the uncompressed bytes. */
  readonly length: number
}

/** Compresses `raw` into a segment (on libuv's thread pool, off the event loop). */
export async function deflateSegment(raw: Buffer): Promise<DeflatedSegment> {
  const data = await deflateRaw(raw, { finishFlush: constants.Z_SYNC_FLUSH })
  return { data, crc: crc32(raw), length: raw.length }
}

/**
 * `bytes` in memory of their own: never Buffer's shared pool (`Buffer.from` takes small copies from
 * it; 64 KB on Node 26), which would keep the pool alive and cannot be transferred to another thread.
 */
function ownCopy(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length)
  bytes.copy(own)
  return own
}

/** The same, on the calling thread: for worker threads, where blocking is the point. */
export function deflateSegmentSync(raw: Buffer): DeflatedSegment {
  const data = deflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH })
  return {
    // A short result is a view of zlib's 16 KB output chunk: keep its own bytes only (a scrape's
    // own families compress to a few KB, and the chunk would live as long as the response).
    data: data.length * 2 < data.buffer.byteLength ? ownCopy(data) : data,
    crc: crc32(raw),
    length: raw.length,
  }
}

/**
 * `segments` laid end to end into as few segments of about `partBytes` deflated bytes each (one
 * copy, the CRCs combined): a sync-flushed segment followed by another is itself one, so the gzip
 * body is the same bytes, sent as a dozen buffers instead of hundreds.
 */
export function joinSegments(segments: readonly DeflatedSegment[], partBytes: number): DeflatedSegment[] {
  const joined: DeflatedSegment[] = []
  let group: DeflatedSegment[] = []
  let bytes = 0
  const flush = () => {
    if (group.length === 1 && group[0]) joined.push(group[0])
    else if (group.length > 1)
      joined.push({
        data: Buffer.concat(
          group.map((segment) => segment.data),
          bytes,
        ),
        ...combined(group),
      })
    group = []
    bytes = 0
  }
  for (const segment of segments) {
    if (group.length > 0 && bytes + segment.data.length > partBytes) flush()
    group.push(segment)
    bytes += segment.data.length
  }
  flush()
  return joined
}

/** The CRC-32 and length of `segments`' uncompressed bytes laid end to end. */
function combined(segments: readonly DeflatedSegment[]): { crc: number; length: number } {
  let crc = 0
  let length = 0
  for (const segment of segments) {
    crc = crc32Combine(crc, segment.crc, segment.length)
    length += segment.length
  }
  return { crc, length }
}

/** gzip header: deflate, no name or time, unknown OS (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff])
/** An empty final block with fixed codes: what closes the deflate stream after the last segment. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00])

/** The buffers of one gzip member holding `segments` in order (the segments' data is not copied). */
export function gzipMember(segments: readonly DeflatedSegment[]): Buffer[] {
  const { crc, length } = combined(segments)
  // Every byte is written below; allocUnsafe takes it from the shared pool, not an ArrayBuffer of its own.
  const trailer = Buffer.allocUnsafe(10)
  FINAL_BLOCK.copy(trailer)
  trailer.writeUInt32LE(crc >>> 0, 2)
  // ISIZE is the length modulo 2^32.
  trailer.writeUInt32LE(length % 2 ** 32, 6)
  return [GZIP_HEADER, ...segments.map((segment) => segment.data), trailer]
}

/** The reflected CRC-32 polynomial used by gzip. */
const POLY = 0xedb88320

/** a*b modulo the CRC polynomial, in CRC bit order (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000
  let p = 0
  for (;;) {
    if (a & m) {
      p ^= b
      if ((a & (m - 1)) === 0) break
    }
    m >>>= 1
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1
  }
  return p >>> 0
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N_TABLE = (() => {
  const table = new Array<number>(32)
  let p = 0x40000000 // x^1
  table[0] = p
  for (let k = 1; k < 32; k++) {
    p = multModP(p, p)
    table[k] = p
  }
  return table
})()

/** x^(8n) modulo the polynomial: what appending n zero bytes does to a CRC (zlib's x2nmodp(n, 3)). */
function zeroBytesOperator(n: number): number {
  let p = 0x80000000 // x^0
  let k = 3
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N_TABLE[k & 31] as number, p)
    n = Math.floor(n / 2)
    k++
  }
  return p
}

/** CRC-32 of A followed by B, from CRC(A), CRC(B) and the length of B (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(zeroBytesOperator(lengthB), crcA >>> 0) ^ (crcB >>> 0)) >>> 0
}
