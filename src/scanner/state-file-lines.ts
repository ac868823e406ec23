import type { FileHandle } from 'node:fs/promises'

/** Bytes read at a time: some hundreds of records, a few milliseconds of parsing. */
const CHUNK_BYTES = 256 * 1024
const NEWLINE = 0x0a

/** A line longer than the limit: the file is not read further. */
export class LineTooLong extends Error {}

/**
 * The lines of `handle` from `position` on, without their newline, each at most `maxBytes`
 * (a longer one throws LineTooLong once that many bytes are held, never more). A newline byte is
 * never part of a UTF-8 sequence, so lines are cut on bytes and decoded whole.
 */
export async function* fileLines(handle: FileHandle, maxBytes: number): AsyncGenerator<string> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let carried = Buffer.alloc(0)
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null)
    if (bytesRead === 0) break
    const bytes = carried.length > 0 ? Buffer.concat([carried, chunk.subarray(0, bytesRead)]) : chunk
    const end = carried.length > 0 ? bytes.length : bytesRead
    let start = 0
    for (let newline = bytes.indexOf(NEWLINE, start); newline !== -1 && newline < end; ) {
      if (newline - start > maxBytes) throw new LineTooLong(`a line is longer than ${maxBytes} bytes`)
      yield bytes.toString('utf8', start, newline)
      start = newline + 1
      newline = bytes.indexOf(NEWLINE, start)
    }
    if (end - start > maxBytes) throw new LineTooLong(`a line is longer than ${maxBytes} bytes`)
    // Copied: `chunk` is read into again.
    carried = Buffer.from(bytes.subarray(start, end))
  }
  if (carried.length > 0) yield carried.toString('utf8')
}
