/**
 * A round that found no bucket looks like a healthy, empty store (`source_up 1`, nothing to
 * measure), which is how a wrong key looks too: S3's ListBuckets answers only the buckets the key's
 * own user owns, so a read-only key made for the exporter sees none of the buckets others created.
 * Said once, when it starts: at the first round of an `s3` source, or whenever a source that listed
 * buckets before lists none.
 */
interface NoBucketsRound {
  readonly source: string
  readonly sourceUp: boolean
  readonly buckets: number
  /** Buckets of the round before (the state file's, for the first round after a restart); undefined at the first round. */
  readonly bucketsBefore: number | undefined
}

const SELECTION = 'or BUCKETS_INCLUDE, BUCKETS_EXCLUDE or SHARD leave none of them to this exporter'

/** The warning for `round`, or undefined when finding no bucket is not suspicious. */
function noBucketsWarning(round: NoBucketsRound): string | undefined {
  if (!round.sourceUp || round.buckets > 0) return undefined
  if (round.bucketsBefore !== undefined && round.bucketsBefore > 0)
    return `the ${round.source} source lists no bucket, ${round.bucketsBefore} before: were they deleted, did the key change, ${SELECTION}?`
  if (round.bucketsBefore === undefined && round.source === 's3')
    return `the s3 source lists no bucket: ListBuckets answers only the buckets the key's user owns, so a key of another user sees none (name them in BUCKETS, or use a key of their owner), ${SELECTION}`
  return undefined
}

/** The warning of each round, said once until buckets come back (not once a round). */
export class NoBucketsNotice {
  #said = false

  /** The warning to log for `round` of `source` (`before`: the snapshot it replaces), if any. */
  next(
    source: string,
    round: { readonly sourceUp: boolean; readonly records: readonly unknown[] },
    before: { readonly buckets: readonly unknown[] } | undefined,
  ): string | undefined {
    const { sourceUp } = round
    const buckets = round.records.length
    const warning = noBucketsWarning({ source, sourceUp, buckets, bucketsBefore: before?.buckets.length })
    const say = warning !== undefined && !this.#said
    if (buckets > 0) this.#said = false
    else if (warning) this.#said = true
    return say ? warning : undefined
  }
}
