/*
 * Moved to src/figures/prefixes/ (issue 24). Left only for s3/source.ts and the inventory reader,
 * which other branches change at the same time: once they are merged, they import
 * src/figures/prefixes/labels.ts and this file goes.
 */
export { keyPrefix, type PrefixSettings } from '../figures/prefixes/labels.js'
