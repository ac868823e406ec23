import { Writable } from 'node:stream'

/** A writable that keeps everything written to it, for reading a console target's real output. */
export class CapturedOutput extends Writable {
  #text = ''

  override _write(
    chunk: Buffer | string,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.#text += chunk.toString()
    callback()
  }

  get text(): string {
    return this.#text
  }

  /** Each non-empty line parsed as JSON (throws if one is not). */
  jsonLines(): Record<string, unknown>[] {
    return this.#text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  }
}
