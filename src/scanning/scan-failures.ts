import type { Logger } from 'pino'
import type { SourceError } from '../sources/types.js'

/* What a scan round reports once per change: a bucket's failure and recovery, the files outside
 * the buckets, the per-user figures. */

/**
 * The last failure reported per bucket, so a failure is logged once until it changes, and a
 * recovery once.
 */
export class BucketFailures {
  readonly #logger: Logger
  readonly #last = new Map<string, string>()

  constructor(logger: Logger) {
    this.#logger = logger
  }

  measured(bucket: string): void {
    if (this.#last.delete(bucket)) this.#logger.info({ bucket }, 'bucket scan recovered')
  }

  failed(bucket: string, error: SourceError): void {
    if (this.#last.get(bucket) === error.message) return
    this.#last.set(bucket, error.message)
    this.#logger.warn({ bucket, kind: error.kind, error: error.message }, 'bucket scan failed')
  }

  #outside: string | undefined

  /** The files outside bucket folders could not be measured: logged once per reason. */
  outside(error: SourceError | undefined): void {
    if (this.#outside === error?.message) return
    this.#outside = error?.message
    if (error)
      this.#logger.warn(
        { kind: error.kind, error: error.message },
        'data folder outside buckets not measured',
      )
  }

  #users: string | undefined

  /** The per-user figures could not be read: logged once per reason, and once when read again. */
  users(error: SourceError | undefined): void {
    if (this.#users === error?.message) return
    const recovered = this.#users !== undefined
    this.#users = error?.message
    if (error) this.#logger.warn({ kind: error.kind, error: error.message }, 'user figures not read')
    else if (recovered) this.#logger.info('user figures read again')
  }

  gone(bucket: string): void {
    this.#last.delete(bucket)
  }

  /**
   * Forgets the buckets not in `present` (gone, or no longer selected). Asks only about the few
   * buckets whose failure is remembered: `present` need not be a Set of every bucket.
   */
  keepOnly(present: { has(bucket: string): boolean }): void {
    for (const bucket of this.#last.keys()) if (!present.has(bucket)) this.#last.delete(bucket)
  }
}
