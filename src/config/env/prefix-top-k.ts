/*
 * PREFIX_TOP_K's bound and default, apart from prefixes.ts (which builds the variables with
 * TypeBox): the record's prefix figure bounds its rows with them, and the fs walk's threads load
 * the figures without TypeBox.
 */

/** PREFIX_TOP_K's upper bound: a bucket then tracks at most 8,000 prefixes while it is folded. */
export const MAX_PREFIX_TOP_K = 1000
/** Prefixes served per bucket unless PREFIX_TOP_K says otherwise. */
export const DEFAULT_PREFIX_TOP_K = 10
