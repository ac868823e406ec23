/*
 * BUCKET_TAG_LABELS' bound, apart from the s3 source's variables (src/sources/s3/settings.ts,
 * which refuses a longer list): the info figure's example bucket (src/figures/info/) carries as
 * many tags, so the docs count the series a bucket can have at most.
 */

/** The most tag keys an allowlist may name (each is one series per bucket that carries it). */
export const MAX_TAG_LABELS = 16
