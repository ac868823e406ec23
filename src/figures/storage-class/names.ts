import type { JavaScriptTypeBuilder, TSchema } from '@sinclair/typebox'
import { copyOutOfPage } from '../copy-out-of-page.js'

/*
 * Storage class names as the store lists them become a bucket record's keys and the
 * `storage_class` label, so they are bounded here, where they enter: stores have a handful (AWS
 * about a dozen, RGW the classes its placement targets define), but an endpoint answering a class
 * of its own per object would otherwise grow each bucket's record by one entry per object and
 * the scrape by one series per entry. The state file's check holds a record to the same bounds
 * (storageClassMap, the schema of a figure per class).
 *
 * The count is bounded per record (a bucket's, or a sum of buckets'), not per process: counted
 * process-wide and never reset, a store that once listed 300 classes turned every class seen
 * later, in any bucket, into OTHER until a restart.
 */

/** Distinct class names a record keeps as themselves; the ones after them count as OTHER. */
export const MAX_STORAGE_CLASSES = 64
/** The longest class name kept as itself (AWS's longest, INTELLIGENT_TIERING, has 19). */
export const STORAGE_CLASS_MAX_LENGTH = 64
/** Where the objects of classes past the bounds are counted, as BUCKETS_TOP_N and prefixes do. */
export const OTHER_STORAGE_CLASS = '_other'
/** A name kept as itself: 1-64 characters, none of them a control character. */
const STORAGE_CLASS_PATTERN = `^[^\\x00-\\x1f\\x7f]{1,${STORAGE_CLASS_MAX_LENGTH}}$`
const KEPT_NAME = new RegExp(STORAGE_CLASS_PATTERN)
/** The class of an object the store lists without one: S3 leaves it out for the default class in some stores; AWS calls that STANDARD. */
export const DEFAULT_STORAGE_CLASS = 'STANDARD'

/**
 * A figure per storage class, as a record holds it: names as storageClassName keeps them, at most
 * MAX_STORAGE_CLASSES and `_other`. additionalProperties false: without it a key the pattern misses
 * (one with a newline) would pass with its value unchecked. (`Type` handed in: no TypeBox here.)
 */
export const storageClassMap = <T extends TSchema>(Type: JavaScriptTypeBuilder, figure: T) =>
  Type.Record(Type.String({ pattern: STORAGE_CLASS_PATTERN }), figure, {
    additionalProperties: false,
    maxProperties: MAX_STORAGE_CLASSES + 1,
  })

/**
 * The first names seen, each held once (a key of many records); a name past them is copied where
 * it is listed instead. Memory only: which names a record keeps is classKey's.
 */
const namesHeld = new Map<string, string>()

/**
 * The name a listed storage class is counted under: itself (as a string of its own, copy-out-of-page.ts),
 * or OTHER_STORAGE_CLASS when it is not a name to keep (too long, a control character in it). An
 * empty name stays empty: the fold counts it as the default class.
 */
export function storageClassName(listed: string): string {
  if (listed === '') return listed
  const held = namesHeld.get(listed)
  if (held !== undefined) return held
  if (!KEPT_NAME.test(listed)) return OTHER_STORAGE_CLASS
  const own = copyOutOfPage(listed)
  if (namesHeld.size < MAX_STORAGE_CLASSES) namesHeld.set(own, own)
  return own
}

/**
 * The key `name` is counted under in a record whose keys so far are `kept`: itself when the
 * record has it or fewer than MAX_STORAGE_CLASSES others, OTHER_STORAGE_CLASS past them.
 */
export function classKey(kept: { has(key: string): boolean; readonly size: number }, name: string): string {
  if (name === OTHER_STORAGE_CLASS || kept.has(name)) return name
  const named = kept.size - (kept.has(OTHER_STORAGE_CLASS) ? 1 : 0)
  return named < MAX_STORAGE_CLASSES ? name : OTHER_STORAGE_CLASS
}
