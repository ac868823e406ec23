/*
 * A bucket's record as a schema (TypeBox): the BucketUsage type of bucket-usage.ts derives from it
 * and the state file's check (state-file-format.ts) compiles it, so a figure's bounds are said
 * once, not in a type and a check kept in step. A new figure declares its properties in its own
 * folder (src/figures/), spread in here. Apart from the fold in
 * bucket-usage.ts, which the fs walk's threads load without TypeBox.
 */
import { Type } from '@sinclair/typebox'
import { figureProperties } from '../figures/assemble.js'

/** Bytes and counts: whole, non-negative, exact in a double. (JSON has no NaN or Infinity.) */
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
/** The range a Date can hold: a store may date an object 1970 or 2100, but nothing beyond this. */
const DATE_LIMIT_SECONDS = 8.64e12

/** A time the store reported (an object's modification, an upload's start), seconds since the epoch. */
const StoreSeconds = Type.Number({ minimum: -DATE_LIMIT_SECONDS, maximum: DATE_LIMIT_SECONDS })

/**
 * What a source measured for one bucket, declared once: the type below and the state file's check
 * of a stored record (state-file.ts) both derive from it (a new figure is a folder of
 * src/figures/, whose properties are spread in last; the quota, the sizes, the versions and the multipart uploads are ones). Optional parts are
 * families the source cannot give.
 */
export const BucketUsageSchema = Type.Object({
  /** Bytes of current objects (the latest version of each key, delete markers excluded). */
  bytes: Count,
  objects: Count,
  /**
   * Entries below the bucket that could not be read and are not counted (fs: a path longer than
   * PATH_MAX, an I/O error, no permission); present for sources that walk a tree.
   */
  unreadableEntries: Type.Optional(Count),
  /** The figures of src/figures/ (list.ts), each folder's properties. */
  ...figureProperties({ Type, Count, StoreSeconds }),
})
