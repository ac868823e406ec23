/*
 * A key's prefix and its label value (PREFIX_DEPTH, PREFIX_DELIMITER): what a listing source hands
 * the fold with each object (ListedObject.prefix), and the rows the prefix families are written
 * with. The fs walk works on bytes and labels its folders itself, with the same bounds.
 */
import type { PrefixSettings } from '../../config/env/prefixes.js'

export type { PrefixSettings }

/** A prefix label is cut to this many UTF-16 units, the last being TRUNCATION_MARKER. */
export const PREFIX_LABEL_MAX_LENGTH = 128
export const TRUNCATION_MARKER = '…'
/** The row of keys with no delimiter within the depth (objects at the bucket's top level). */
export const ROOT_PREFIX = '_root'
/** The row of every prefix beyond the top K. */
export const OTHER_PREFIX = '_other'

/**
 * Where the prefix of `key` ends (just after its `depth`-th delimiter, or its last one when it has
 * fewer), or -1 when the key has no delimiter (it counts under ROOT_PREFIX). A key deeper than the
 * depth counts under its folder at that depth; a shallower one under the folder it is in.
 */
export function prefixEnd(key: string, delimiter: string, depth: number): number {
  let end = -1
  for (let level = 0; level < depth; level++) {
    const at = key.indexOf(delimiter, Math.max(end, 0))
    if (at < 0) break
    end = at + delimiter.length
  }
  return end
}

/**
 * A prefix as a label value: at most PREFIX_LABEL_MAX_LENGTH units, cut ones ending in
 * TRUNCATION_MARKER (prefixes alike in their first 127 units then share a row). A prefix spelled
 * like a reserved row (`_root`, `_other`: only a delimiter ending in `t` or `r` can make one) is
 * shown with a leading backslash, so no two rows share a label.
 */
export function boundedPrefix(prefix: string): string {
  if (prefix === ROOT_PREFIX || prefix === OTHER_PREFIX) return `\\${prefix}`
  if (prefix.length <= PREFIX_LABEL_MAX_LENGTH) return prefix
  let cut = PREFIX_LABEL_MAX_LENGTH - TRUNCATION_MARKER.length
  // Never half a surrogate pair: the label must stay valid UTF-8.
  const last = prefix.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return prefix.slice(0, cut) + TRUNCATION_MARKER
}

/** The prefix label of a key (S3 keys; the fs walk works on bytes and labels its folders itself). */
export function keyPrefix(key: string, settings: PrefixSettings): string {
  const end = prefixEnd(key, settings.delimiter, settings.depth)
  return end < 0 ? ROOT_PREFIX : boundedPrefix(key.slice(0, end))
}
