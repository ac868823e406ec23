/*
 * How the figures of two records combine, said once. Three places sum records: the fs walk merges
 * the parts of one bucket its threads folded and the s3 source the key ranges of one bucket it
 * listed at once (mergeUsage, here), and BUCKETS_TOP_N sums the buckets it does not itemise into
 * the `_other` row (sumFigures, src/exposition/usage-budget.ts). All add the figures listed in
 * ADDITIVE_FIGURES; every other numeric figure of a
 * record is in NOT_ADDITIVE_FIGURES with what becomes of it. A unit test walks the record's schema
 * and fails on a numeric figure in neither list, so a new figure is classified where it is added,
 * and docs/cardinality.md's `_other` paragraph is generated from the lists (npm run docs).
 */
import { FIGURE_COMBINATIONS, inPropertyPlaces, withMergedFigures } from '../figures/assemble.js'
import { classKey } from '../figures/storage-class/names.js'
import { type BucketUsage, checkedSum, type MultipartUsage, type VersionUsage } from './bucket-usage.js'

/** A figure's place in the record: a property, or a property of `versions` or `multipart`. */
export type FigurePath =
  | keyof BucketUsage
  | `versions.${keyof VersionUsage}`
  | `multipart.${keyof MultipartUsage}`

/**
 * Counts a sum of records keeps as the sum of theirs, each with how docs/cardinality.md names it:
 * a whole count, a count per slot (bands, ranges), or a count per key (storage classes).
 */
export const ADDITIVE_FIGURES: readonly { readonly path: FigurePath; readonly says: string }[] =
  inPropertyPlaces([
    { path: 'bytes', says: 'bytes' },
    { path: 'objects', says: 'objects' },
    { path: 'unreadableEntries', says: 'unreadable entries' },
    ...FIGURE_COMBINATIONS.flatMap(({ path, combination }) =>
      combination.additive ? [{ path: path as FigurePath, says: combination.says }] : [],
    ),
  ])

/**
 * Figures a sum of buckets has no meaning for, left out of `_other`, each with what docs call it
 * and how mergeUsage combines two parts of one bucket (the walk's threads).
 */
export const NOT_ADDITIVE_FIGURES: readonly {
  readonly path: FigurePath
  readonly says: string
  readonly parts: string
}[] = inPropertyPlaces([
  ...FIGURE_COMBINATIONS.flatMap(({ path, combination }) =>
    combination.additive
      ? []
      : [{ path: path as FigurePath, says: combination.says, parts: combination.parts }],
  ),
])

type Figure = number | readonly number[] | Readonly<Record<string, number | readonly number[]>>
type Sum = number | number[] | Record<string, number | number[]>

/**
 * The additive figures of `usages` summed (ADDITIVE_FIGURES; the others are left out). A figure
 * some records lack is the sum over those that have it: a record without versions adds none.
 */
export function sumFigures(usages: readonly BucketUsage[]): BucketUsage {
  const sums = new FigureSums()
  for (const usage of usages) sums.add(usage)
  return sums.figures()
}

/** sumFigures one bucket at a time, for a sum taken in slices. */
export class FigureSums {
  readonly #sums = new Map<FigurePath, Sum>()
  /** How many figures were added. */
  count = 0

  add(usage: BucketUsage): void {
    this.count++
    for (const { path } of ADDITIVE_FIGURES) {
      const value = figureAt(usage, path)
      if (value !== undefined) this.#sums.set(path, addInto(this.#sums.get(path), value))
    }
  }

  figures(): BucketUsage {
    const out: Record<string, unknown> = { bytes: 0, objects: 0 }
    for (const [path, sum] of this.#sums) {
      const [part, name] = path.includes('.') ? path.split('.') : [undefined, path]
      if (part === undefined) {
        out[name as string] = sum
        continue
      }
      const holder = (out[part] ?? {}) as Record<string, unknown>
      holder[name as string] = sum
      out[part] = holder
    }
    return out as BucketUsage
  }
}

/**
 * Two partial figures of one bucket as one (parts of a walk done on different threads, key ranges
 * listed at once): the additive figures summed (sumFigures), the others as NOT_ADDITIVE_FIGURES
 * says for parts.
 */
export function mergeUsage(a: BucketUsage, b: BucketUsage): BucketUsage {
  const summed = sumFigures([a, b])
  // One bucket's figures, exact or not at all (bucket-usage.ts: MAX_FIGURE); every other byte
  // figure is a part of one of these. `_other` sums buckets for the exposition, a double anyway.
  checkedSum(summed.bytes, 'bytes')
  checkedSum(summed.versions?.noncurrentBytes ?? 0, 'noncurrent bytes')
  checkedSum(summed.multipart?.bytes ?? 0, 'incomplete upload bytes')
  // The figures of src/figures/ that do not add up, as each says.
  return withMergedFigures(summed, a, b)
}

function figureAt(usage: BucketUsage, path: FigurePath): Figure | undefined {
  const dot = path.indexOf('.')
  const holder = (dot < 0 ? usage : usage[path.slice(0, dot) as 'versions' | 'multipart']) as
    | Readonly<Record<string, unknown>>
    | undefined
  return holder?.[dot < 0 ? path : path.slice(dot + 1)] as Figure | undefined
}

/** `value` added to `sum` (owned: a fresh copy the first time, added into after). */
function addInto(sum: Sum | undefined, value: Figure): Sum {
  if (typeof value === 'number') return ((sum as number | undefined) ?? 0) + value
  if (Array.isArray(value)) {
    const out = (sum as number[] | undefined) ?? new Array<number>(value.length).fill(0)
    value.forEach((count: number, slot: number) => {
      out[slot] = (out[slot] ?? 0) + count
    })
    return out
  }
  // A count per key is a count per storage class: a sum keeps as many classes as a bucket does.
  const out = (sum as Record<string, number | number[]> | undefined) ?? {}
  for (const [name, count] of Object.entries(value)) {
    // Only a key the sum lacks needs the count (rare: a few per sum).
    const key = Object.hasOwn(out, name) ? name : classKey(new Set(Object.keys(out)), name)
    out[key] = addInto(out[key], count) as number | number[]
  }
  return out
}

/** What `_other` sums, in words, from ADDITIVE_FIGURES (each named once, in order). */
export function describeAdditive(): string {
  return wordList([...new Set(ADDITIVE_FIGURES.map((figure) => figure.says))])
}

/** What `_other` leaves out, in words, from NOT_ADDITIVE_FIGURES. */
export function describeNotAdditive(): string {
  return wordList([...new Set(NOT_ADDITIVE_FIGURES.map((figure) => figure.says))])
}

function wordList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '')
}
