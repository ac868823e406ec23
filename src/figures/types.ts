/*
 * What a per-bucket figure (or a group of figures) declares, in its own folder under src/figures/:
 * its part of the record (a schema with bounds), its step of the fold, how two partial records
 * combine, its families and how it writes them. The record's schema, the fold, mergeUsage, the
 * sums of `_other`, the usage families and the docs tables are assembled from the list of figures
 * (list.ts), as the config is assembled from the list of sources.
 *
 * Only types of TypeBox and of the exposition here: the fs walk's threads load the figures with
 * the fold, and must not load TypeBox (bucket-usage.ts says why).
 */
import type {
  JavaScriptTypeBuilder,
  Static,
  TInteger,
  TNumber,
  TObject,
  TProperties,
} from '@sinclair/typebox'
import type { Families } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { Frozen } from './deep-readonly.js'

/**
 * One entry of a listing, as every listing source gives it to the fold: a current object (s3's
 * listing, the fs walk's files), or with a versioned listing every version and delete marker,
 * each key's entries together, newest first (version-listing.ts puts them so). A fold step reads
 * it and keeps nothing of it: a source may hand the same object again with other values (the fs
 * walk does, to allocate none per file).
 */
export interface ListedObject {
  /** Bytes (0 for a delete marker). */
  size: number
  /** Last-modified time, ms since the epoch (NaN when the store gave none). */
  modifiedMs: number
  /** As the store lists it; undefined where the source has no storage classes (fs). */
  storageClass?: string | undefined
  /** The label of the key's prefix (prefixes/labels.ts: keyPrefix), when prefixes are measured. */
  prefix?: string | undefined
  /** The key: given by a versioned listing, whose entries of one key follow each other. */
  key?: string | undefined
  /** A versioned listing's: the version's id (`null` for an unversioned write's). */
  versionId?: string | undefined
  /** A versioned listing's: false for a noncurrent version or delete marker; current otherwise. */
  isLatest?: boolean | undefined
  /** A versioned listing's: the entry is a delete marker (no object, no size). */
  isDeleteMarker?: boolean | undefined
  /** A noncurrent version's: when its successor was written (ms since the epoch), NaN unknown. */
  replacedMs?: number | undefined
}

/** What a fold measures (see UsageAccumulator's constructor). */
export interface UsageFoldOptions {
  readonly storageClasses: boolean
  readonly nowMs: number
  readonly ages?: boolean | undefined
  readonly prefixTopK?: number | undefined
  /** The listing is versioned: every version and delete marker is given (default false). */
  readonly versions?: boolean | undefined
  /** Fold noncurrent ages and expired delete markers (the `hidden` group; default true). */
  readonly hidden?: boolean | undefined
}

/** The schema parts a figure's record fragment is built with, handed in so it imports no TypeBox. */
export interface RecordParts {
  readonly Type: JavaScriptTypeBuilder
  /** Bytes and counts: whole, non-negative, exact in a double. */
  readonly Count: TInteger
  /** A time the store reported, seconds since the epoch, within what a Date can hold. */
  readonly StoreSeconds: TNumber
}

/**
 * One bucket's step of the fold for a figure: each entry it takes (its definition's `entries`),
 * then the figure's properties.
 */
export interface FigureFold<R> {
  add(entry: ListedObject): void
  /**
   * Objects already added without a prefix, counted under `prefix` at once (the fs walk sums a
   * folder's files, which share one prefix, and adds them once): the prefix figure's.
   */
  addToPrefix?(prefix: string, bytes: number, objects: number): void
  finish(): R
}

/**
 * How two records' values of one property combine: added (a count, a count per slot or per key:
 * summed in `_other` and across the fs walk's parts), or not (left out of `_other`; `merge` joins
 * two parts of one bucket), or for a part of the record (an object: `versions`) each of its
 * properties as one of these. `says` is how docs/cardinality.md names it.
 */
export type Combination<V> =
  | { readonly additive: true; readonly says: string }
  | {
      readonly additive: false
      readonly says: string
      readonly parts: string
      readonly merge: (a: V, b: V) => V
    }
  | {
      readonly additive?: undefined
      // A merge is given two values (an optional property's only when both parts have it).
      readonly part: {
        readonly [K in keyof NonNullable<V>]-?: Combination<Exclude<NonNullable<V>[K], undefined>>
      }
    }

export interface FigureDefinition<P extends TProperties, F extends Families> {
  /** The folder's name. */
  readonly name: string
  /** Its properties of the bucket's record (BucketUsage), with their bounds. */
  readonly record: (parts: RecordParts) => P
  /**
   * Its step of the fold of a listing: one per bucket measured (undefined when `options` ask none
   * of its figures: the objects are not handed to it); absent for a figure no listing gives.
   */
  readonly fold?: (options: UsageFoldOptions) => FigureFold<Frozen<Partial<Static<TObject<P>>>>> | undefined
  /**
   * Which entries its fold step takes: `current` (the default) each current object of any
   * listing; `versions` every entry of a versioned listing (its step made only for one).
   */
  readonly entries?: 'current' | 'versions'
  /**
   * How each of its properties combines (a complete table: the compiler checks every one is
   * there); a part of the record (an object) as each of its properties does.
   */
  readonly combine: { readonly [K in keyof P]-?: Combination<Frozen<Static<P[K]>>> }
  /** Why a stored record's values cannot be what the fold gave (the state file's check), if they cannot. */
  readonly invariant?: (
    values: Frozen<Partial<Static<TObject<P>>>>,
    record: RecordTotals,
  ) => string | undefined
  /** Every property with a value, as a source that gives all of them would: the docs count series with it. */
  readonly example: Required<Static<TObject<P>>>
  /**
   * The figures whose record parts hold its properties, when they live in theirs (the `hidden`
   * group's, inside `versions` and `multipart`: the state file's shape is older than the folders):
   * it writes its families from their parts, which its writer is handed as every writer is handed
   * the whole record (assemble.ts: writeFigures); a test writes it from their examples.
   */
  readonly reads?: readonly AnyFigure[]
  /** Its per-bucket families (each with its BUCKET_METRICS group). */
  readonly families: F
  /** Writes its families from a bucket's record (the `_other` row's too), whose totals it may read. */
  readonly write: (
    out: MetricSink<F>,
    bucket: string,
    values: Frozen<Partial<Static<TObject<P>>>>,
    record: RecordTotals,
  ) => void
  /**
   * A figure of the record's first ones, moved into a folder, keeps its place: its families go
   * before `family` in the exposition (and docs/metrics.md), its properties before `property` in
   * docs/cardinality.md's lists, so the output is the same as before the move. Where they stood
   * apart, each names its own: `{ [family or property]: before }`. A new figure has none: it goes
   * last.
   */
  readonly keepsPlace?: { readonly family: Place; readonly property: Place }
}

/** Before which name a figure's names go: one for all of them, or one each. */
export type Place = string | Readonly<Record<string, string>>

/** What every record holds, which a figure's invariant may compare with. */
export interface RecordTotals {
  readonly bytes: number
  readonly objects: number
}

/** A figure, as the list holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds figures of different properties and families; each is checked where it is defined
export type AnyFigure = FigureDefinition<any, any>

/** Declares a figure, its types inferred and checked against each other. */
export function defineFigure<const P extends TProperties, const F extends Families>(
  figure: FigureDefinition<P, F>,
): FigureDefinition<P, F> {
  return figure
}

/**
 * How a property a source sets whole on the record combines (no listing gives it): left out of
 * `_other`, and of two parts of one bucket either part's value is the bucket's.
 */
export function setWhole(says: string, parts: string) {
  return { additive: false, says, parts, merge: <V>(a: V): V => a } as const
}
