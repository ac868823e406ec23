import { ownString } from './detached-string.js'

/*
 * Storage class names as the store lists them become a bucket record's keys and the
 * `storage_class` label, so they are bounded here, where they enter: stores have a handful (AWS
 * about a dozen, RGW the classes its placement targets define), but an endpoint answering a class
 * of its own per object would otherwise grow each bucket's record by one entry per object and
 * the scrape by one series per entry. The state file's check (bucket-usage-schema.ts) holds a
 * record to the same bounds.
 */

/** Distinct class names kept as themselves, process-wide; the ones after them count as OTHER. */
export const MAX_STORAGE_CLASSES = 64
/** The longest class name kept as itself (AWS's longest, INTELLIGENT_TIERING, has 19). */
export const STORAGE_CLASS_MAX_LENGTH = 64
/** Where the objects of classes past the bounds are counted, as BUCKETS_TOP_N and prefixes do. */
export const OTHER_STORAGE_CLASS = '_other'
/** A name kept as itself: 1-64 characters, none of them a control character. */
export const STORAGE_CLASS_PATTERN = `^[^\\x00-\\x1f\\x7f]{1,${STORAGE_CLASS_MAX_LENGTH}}$`
const KEPT_NAME = new RegExp(STORAGE_CLASS_PATTERN)

/** The names seen so far, each kept once (a key of many records). */
const namesSeen = new Map<string, string>()

/**
 * The name a listed storage class is counted under: itself (as a string of its own, detached-string.ts),
 * or OTHER_STORAGE_CLASS when it is not a name to keep (too long, a control character in it) or
 * MAX_STORAGE_CLASSES others came first. An empty name stays empty: the fold counts it as the
 * default class.
 */
export function storageClassName(listed: string): string {
  if (listed === '') return listed
  const known = namesSeen.get(listed)
  if (known !== undefined) return known
  if (namesSeen.size >= MAX_STORAGE_CLASSES || !KEPT_NAME.test(listed)) return OTHER_STORAGE_CLASS
  const own = ownString(listed)
  namesSeen.set(own, own)
  return own
}
