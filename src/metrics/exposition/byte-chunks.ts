/** The writer's buffers (writer.ts): sample lines appended as UTF-8, never one long string. */

const MAX_CHUNK_BYTES = 256 << 10
/** Buffers up to this size come from Node's pool (Buffer.poolSize / 2) and are not copied at the end. */
const SMALL_CHUNK_BYTES = Buffer.poolSize >>> 1

/** Text appended as UTF-8 into buffers that double up to MAX_CHUNK_BYTES; never a long string. */
export class ByteChunks {
  readonly #chunks: Buffer[] = []
  #current: Buffer
  #used = 0

  constructor(firstBytes: number) {
    this.#current = Buffer.allocUnsafe(firstBytes)
  }

  write(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (this.#current.length - this.#used < text.length * 3) this.#next(text.length * 3)
    this.#used += this.#current.write(text, this.#used, 'utf8')
  }

  /** The buffers filled so far (not the one being written), removed from here. */
  takeFilled(): Buffer[] {
    return this.#chunks.splice(0)
  }

  /** The written bytes; the last buffer is copied to its size, so no unused memory stays held. */
  finish(): Buffer[] {
    if (this.#used > 0 && this.#current.length <= SMALL_CHUNK_BYTES) {
      // A small buffer (a scrape's own family) is a slice of Node's shared pool: kept as it is.
      this.#chunks.push(this.#current.subarray(0, this.#used))
    } else if (this.#used > 0) {
      const written = Buffer.allocUnsafeSlow(this.#used)
      this.#current.copy(written, 0, 0, this.#used)
      this.#chunks.push(written)
    }
    this.#current = Buffer.alloc(0)
    this.#used = 0
    return this.#chunks
  }

  #next(minimum: number): void {
    if (this.#used > 0) this.#chunks.push(this.#current.subarray(0, this.#used))
    const size = Math.min(MAX_CHUNK_BYTES, this.#current.length * 2)
    this.#current = Buffer.allocUnsafe(Math.max(size, minimum))
    this.#used = 0
  }
}
