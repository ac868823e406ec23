import type { FileHandle } from 'node:fs/promises'

/**
 * Bytes read at a time. The next chunk is read while this one's lines are parsed; a MiB is some
 * 600 records and a few reads a slice at most.
 */
const CHUNK_BYTES = 2 ** 20
const NEWLINE = 0x0a

/** A line longer than the limit: the file is not read further. */
export class LineTooLong extends Error {}

/**
 * The lines of `handle` from its position on, each at most `maxBytes` (a longer one throws
 * LineTooLong once that many bytes and a chunk are held, never more), a chunk's whole lines at a
 * time: their bytes with the newlines between them (none after the last), good until the next
 * chunk is asked for (the buffer is read into again). `lines` takes them out one by one.
 */
export async function* fileLineChunks(handle: FileHandle, maxBytes: number): AsyncGenerator<Buffer> {
  let filling = Buffer.allocUnsafe(CHUNK_BYTES)
  let spare = Buffer.allocUnsafe(CHUNK_BYTES)
  let carried = Buffer.alloc(0)
  let reading = handle.read(filling, 0, CHUNK_BYTES, null)
  try {
    for (;;) {
      const { bytesRead } = await reading
      if (bytesRead === 0) break
      const chunk = filling.subarray(0, bytesRead)
      // The next chunk is read into the other buffer while this one is split and its lines used.
      ;[filling, spare] = [spare, filling]
      reading = handle.read(filling, 0, CHUNK_BYTES, null)
      const bytes = carried.length > 0 ? Buffer.concat([carried, chunk]) : chunk
      const last = bytes.lastIndexOf(NEWLINE)
      if (bytes.length > maxBytes) checkLines(bytes, carried.length, maxBytes)
      // Copied: `chunk`'s buffer is read into again.
      carried = Buffer.from(bytes.subarray(last + 1))
      if (last !== -1) yield bytes.subarray(0, last)
    }
    if (carried.length > 0) yield carried
  } finally {
    // A read still under way when the lines are left: waited for, and its failure not left unhandled.
    await reading.catch(() => undefined)
  }
}

/** A line of a chunk: its text and where its bytes are, `bytes[start, end)`. */
export interface Line {
  readonly text: string
  readonly start: number
  readonly end: number
}

/**
 * The lines of a chunk's `bytes` from `start` on, each decoded as it is asked for (a newline byte
 * is never part of a UTF-8 sequence), so each dies young. A chunk decoded whole (a MiB string,
 * in the old generation) and split left 17-22 MB of garbage there by the load's last full
 * collection, against some 5 MB this way.
 */
export function* lines(bytes: Buffer, start = 0): Generator<Line> {
  while (start <= bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start)
    const end = newline === -1 ? bytes.length : newline
    yield { text: bytes.toString('utf8', start, end), start, end }
    start = end + 1
  }
}

/**
 * Throws LineTooLong if a line of `bytes` is longer than `maxBytes`, the last one counted so far
 * (it may go on in the next chunk). Its first `carriedBytes` hold no newline: they are not searched again.
 */
function checkLines(bytes: Buffer, carriedBytes: number, maxBytes: number): void {
  let start = 0
  for (let from = carriedBytes; ; ) {
    const newline = bytes.indexOf(NEWLINE, from)
    if ((newline === -1 ? bytes.length : newline) - start > maxBytes)
      throw new LineTooLong(`a line is longer than ${maxBytes} bytes`)
    if (newline === -1) return
    start = from = newline + 1
  }
}
