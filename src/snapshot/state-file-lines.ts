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
 * time: their bytes with the newlines between them (none after the last). Each chunk is read
 * into a buffer of its own, never read into again, so a line's bytes stay good for as long as
 * something holds them (stored-records.ts keeps records' lines so); the next chunk is read while
 * this one's lines are used, behind the start of a line this one ends in. `lines` takes them out
 * one by one.
 */
export async function* fileLineChunks(handle: FileHandle, maxBytes: number): AsyncGenerator<Buffer> {
  let filling = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  let carried = 0
  let reading = handle.read(filling, 0, CHUNK_BYTES, null)
  try {
    for (;;) {
      const { bytesRead } = await reading
      const bytes = filling.subarray(0, carried + bytesRead)
      if (bytesRead === 0) {
        if (bytes.length > 0) yield bytes
        break
      }
      if (bytes.length > maxBytes) checkLines(bytes, carried, maxBytes)
      const last = bytes.lastIndexOf(NEWLINE)
      // The start of a line this chunk ends in goes first into the next chunk's buffer.
      carried = bytes.length - (last + 1)
      filling = Buffer.allocUnsafeSlow(carried + CHUNK_BYTES)
      bytes.copy(filling, 0, last + 1)
      reading = handle.read(filling, carried, CHUNK_BYTES, null)
      if (last !== -1) yield bytes.subarray(0, last)
    }
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
