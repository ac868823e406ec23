/*
 * The one list of per-bucket figures that live in a folder of their own (types.ts: what a folder
 * declares). Adding one: create its folder, add it here, `npm run docs`. The record's schema, the
 * fold, how records combine and the usage families are assembled from this list (assemble.ts);
 * the record's first figures (bucket-usage-schema.ts and the fold in bucket-usage.ts) predate it.
 */
import { age } from './age/index.js'
import { emptyObjects } from './empty-objects/index.js'
import { hidden } from './hidden/index.js'
import { indexShards } from './index-shards/index.js'
import { info } from './info/index.js'
import { inventory } from './inventory/index.js'
import { multipart } from './multipart/index.js'
import { prefixes } from './prefixes/index.js'
import { quota } from './quota/index.js'
import { sizes } from './sizes/index.js'
import { storageClass } from './storage-class/index.js'
import { times } from './times/index.js'
import type { AnyFigure } from './types.js'
import { usageLog } from './usage-log/index.js'
import { versions } from './versions/index.js'

/** In the record's and the exposition's order: a new figure goes last. */
export const FIGURES = [
  emptyObjects,
  quota,
  times,
  inventory,
  sizes,
  storageClass,
  age,
  versions,
  multipart,
  hidden,
  prefixes,
  info,
  indexShards,
  usageLog,
] as const satisfies readonly AnyFigure[]
