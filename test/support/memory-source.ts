import type {
  BeginScanOptions,
  BucketUsage,
  ScanRound,
  UsageSource,
  UserScan,
} from '../../src/sources/types.js'
import { SourceError } from '../../src/sources/types.js'

/** What one bucket answers: its figures, or the error measuring it rejects with. */
export type MemoryBucket = BucketUsage | SourceError

/**
 * A usage source that keeps its buckets in memory: a real implementation of the source contract
 * (listing, per-bucket measuring, abort signals, close), so the scanner's rules run at unit speed
 * without a store. Tests change `buckets`, `down` and `held` between scans.
 */
export class MemorySource implements UsageSource {
  readonly name = 'memory'
  readonly id: string
  /** Listed in this order; a fixed BUCKETS entry not in here is measured as missing. */
  readonly buckets = new Map<string, MemoryBucket>()
  /** When set, beginScan rejects with it: the source is down. */
  down: SourceError | undefined
  /** Buckets whose measuring waits until `release()` (or its signal aborts). */
  readonly held = new Set<string>()
  /** The per-user part a round offers (or the error it rejects with); none when undefined. */
  users: UserScan | SourceError | undefined
  /** Measuring ignores its abort signal (a source that hangs), for the scanner's own bound. */
  ignoresAbort = false
  beginScans = 0
  readonly measured: string[] = []
  /** Abort reasons the measuring of held buckets saw. */
  readonly abortReasons: unknown[] = []
  roundsClosed = 0
  closed = false
  #release: (() => void) | undefined
  #released = Promise.resolve()

  constructor(id = 'memory:test') {
    this.id = id
    this.hold()
    this.release()
  }

  /** From now on, held buckets wait until release(). */
  hold(...names: string[]): void {
    for (const name of names) this.held.add(name)
    this.#released = new Promise((resolve) => {
      this.#release = resolve
    })
  }

  release(): void {
    this.#release?.()
  }

  async beginScan(options: BeginScanOptions): Promise<ScanRound> {
    this.beginScans++
    if (options.signal.aborted) throw options.signal.reason
    if (this.down) throw this.down
    return {
      buckets: options.fixedBuckets ?? [...this.buckets.keys()],
      measure: (bucket, signal) => this.#measure(bucket, signal),
      ...(this.users === undefined
        ? {}
        : {
            users: async () => {
              if (this.users instanceof SourceError) throw this.users
              return structuredClone(this.users as UserScan)
            },
          }),
      close: async () => {
        this.roundsClosed++
      },
    }
  }

  async close(): Promise<void> {
    this.closed = true
  }

  async #measure(bucket: string, signal: AbortSignal): Promise<BucketUsage> {
    this.measured.push(bucket)
    if (this.held.has(bucket)) await this.#wait(signal)
    const answer = this.buckets.get(bucket)
    if (answer === undefined) throw new SourceError(`${bucket}: no such bucket`, 'missing')
    if (answer instanceof SourceError) throw answer
    return structuredClone(answer)
  }

  #wait(signal: AbortSignal): Promise<void> {
    if (this.ignoresAbort) return new Promise(() => undefined)
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.abortReasons.push(signal.reason)
        reject(signal.reason)
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      void this.#released.then(() => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      })
    })
  }
}

/** Figures for a bucket of `objects` objects of `bytes` bytes in all. */
export function usageOf(bytes: number, objects: number): BucketUsage {
  return { bytes, objects }
}
