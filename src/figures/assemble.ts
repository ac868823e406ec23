/*
 * What is assembled from the list of figures (list.ts): their record properties, their fold steps,
 * how their properties combine, their invariants, their families and writers. Light: the fs walk's
 * threads load it with the fold (no TypeBox; the schema builder is handed in).
 */
import type { Static, TObject } from '@sinclair/typebox'
import { type Families, unionOf } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
import type { Frozen } from './deep-readonly.js'
import { FIGURES } from './list.js'
import type {
  AnyFigure,
  Combination,
  FigureFold,
  Place,
  RecordParts,
  RecordTotals,
  UsageFoldOptions,
} from './types.js'

type Listed = (typeof FIGURES)[number]
type UnionToIntersection<U> = (U extends unknown ? (each: U) => void : never) extends (each: infer I) => void
  ? I
  : never
/** Nothing while the list is empty, else every figure's. */
type Every<U> = [U] extends [never] ? Record<never, never> : UnionToIntersection<U>

/** The record properties of every listed figure (bucket-usage-schema.ts spreads them in). */
export type FigureProperties = Every<ReturnType<Listed['record']>>
/** The families of every listed figure. */
export type FigureFamilies = Every<Listed['families']>
/** The listed figures' values, as a record holds them. */
export type FigureValues = Frozen<Partial<Static<TObject<FigureProperties & Record<never, never>>>>>

const LISTED: readonly AnyFigure[] = FIGURES

export function figureProperties(parts: RecordParts): FigureProperties {
  return Object.assign({}, ...LISTED.map((figure) => figure.record(parts))) as FigureProperties
}

/** Every listed figure's example values: a record with each of their properties. */
export function figureExamples(): FigureValues {
  return Object.assign({}, ...LISTED.map((figure) => figure.example)) as FigureValues
}

/**
 * Every figure's fold step for one bucket that takes `entries` (types.ts: FigureDefinition's):
 * the figures a listing gives.
 */
export function figureFolds(
  options: UsageFoldOptions,
  entries: 'current' | 'versions' = 'current',
): FigureFold<FigureValues>[] {
  return LISTED.flatMap((figure) => {
    if ((figure.entries ?? 'current') !== entries) return []
    const fold = figure.fold?.(options)
    return fold ? [fold as FigureFold<FigureValues>] : []
  })
}

/** A property's combination, a part's properties each on its own (`versions.deleteMarkers`). */
type PathCombination = {
  readonly path: string
  readonly combination: Exclude<Combination<unknown>, { readonly part: unknown }>
}

/** A figure's properties with how each combines; a part's as `part.property`. */
function combinationsOf(figure: AnyFigure): PathCombination[] {
  return Object.entries(figure.combine as Record<string, Combination<Record<string, unknown>>>).flatMap(
    ([path, combination]) =>
      'part' in combination
        ? Object.entries(combination.part as Record<string, PathCombination['combination']>).map(
            ([name, each]) => ({
              path: `${path}.${name}`,
              combination: each,
            }),
          )
        : [{ path, combination: combination as PathCombination['combination'] }],
  )
}

/** Each listed property with how it combines, in the list's order. */
export const FIGURE_COMBINATIONS: readonly PathCombination[] = LISTED.flatMap(combinationsOf)

/**
 * `summed` (the additive figures of two parts of one bucket, usage-sums.ts) with the values of
 * the figures that do not add up, as each figure merges the two parts'.
 */
export function withMergedFigures<T extends object>(
  summed: T,
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): T {
  const out = { ...summed } as Record<string, unknown>
  for (const { path, combination } of FIGURE_COMBINATIONS) {
    if (combination.additive) continue
    const dot = path.indexOf('.')
    const part = dot < 0 ? undefined : path.slice(0, dot)
    const name = dot < 0 ? path : path.slice(dot + 1)
    const of = (usage: Readonly<Record<string, unknown>>) =>
      (part === undefined ? usage : (usage[part] as Readonly<Record<string, unknown>> | undefined))?.[name]
    const [x, y] = [of(a), of(b)]
    const value = x === undefined ? y : y === undefined ? x : combination.merge(x, y)
    if (value === undefined) continue
    if (part === undefined) out[name] = value
    // A part's merged value goes into the summed part; a part neither record has stays absent.
    else if (out[part] !== undefined) out[part] = { ...(out[part] as object), [name]: value }
  }
  return out as T
}

/** The first invariant of a listed figure a stored record breaks, or undefined. */
export function figureInvariantProblem(record: RecordTotals & Frozen<FigureValues>): string | undefined {
  for (const figure of LISTED) {
    const problem = figure.invariant?.(record, record)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** The families of every listed figure, as the usage collector declares them. */
export const figureFamilies = unionOf(
  LISTED.map((figure) => figure.families as Families),
  LISTED.map((figure) => `figure ${figure.name}`),
) as FigureFamilies

/**
 * `families` (the usage block, the figures' families among them) with each figure that keeps its
 * place moved before the family it names (types.ts: keepsPlace); the others stay where they are.
 */
export function inFigurePlaces<F extends Families>(families: F): F {
  const names = arranged(
    Object.keys(families),
    anchors((figure) => Object.keys(figure.families as Families), 'family'),
  )
  return Object.fromEntries(names.map((name) => [name, families[name]])) as F
}

/**
 * `entries` (docs/cardinality.md's additive or other figures, usage-sums.ts) with the listed
 * figures' entries among them each before the property its figure names (keepsPlace), the others
 * last, in the list's order.
 */
export function inPropertyPlaces<T extends { readonly path: string }>(entries: readonly T[]): T[] {
  const paths = arranged(
    [...new Set(entries.map(({ path }) => path))],
    anchors((figure) => combinationsOf(figure).map(({ path }) => path), 'property'),
  )
  return paths.flatMap((path) => entries.filter((entry) => entry.path === path))
}

/** Each name of a figure that keeps its place, with the name it goes before, in the list's order. */
function anchors(
  namesOf: (figure: AnyFigure) => readonly string[],
  kind: 'family' | 'property',
): Map<string, string> {
  const before = new Map<string, string>()
  for (const figure of LISTED) {
    const place = figure.keepsPlace?.[kind] as Place | undefined
    if (place === undefined) continue
    for (const name of namesOf(figure)) {
      const anchor = typeof place === 'string' ? place : place[name]
      if (anchor === undefined)
        throw new Error(`figure ${figure.name} keeps the place of some of its names, not ${name}`)
      before.set(name, anchor)
    }
  }
  return before
}

/**
 * `order` with each name of `before` put just before the name it names, itself perhaps moved (the
 * quota's family goes before the sizes', which goes before the versions'...): the list's order
 * does not matter. Names placed before one name keep the list's order.
 */
function arranged(order: readonly string[], before: ReadonlyMap<string, string>): string[] {
  const present = new Set(order)
  const placed = new Map<string, string[]>()
  for (const [name, anchor] of before) {
    if (!present.has(name)) continue
    if (!present.has(anchor)) throw new Error(`a figure keeps its place before ${anchor}, which is not there`)
    placed.set(anchor, [...(placed.get(anchor) ?? []), name])
  }
  const out: string[] = []
  const emit = (name: string, depth: number): void => {
    if (depth > order.length) throw new Error(`figures keep places before each other in a circle (${name})`)
    for (const moved of placed.get(name) ?? []) emit(moved, depth + 1)
    out.push(name)
  }
  for (const name of order) if (!present.has(before.get(name) ?? '')) emit(name, 0)
  return out
}

/** Writes every listed figure's families from a bucket's record. */
export function writeFigures(
  out: MetricSink<Families>,
  bucket: string,
  usage: RecordTotals & Frozen<FigureValues>,
): void {
  for (const figure of LISTED) figure.write(out, bucket, usage, usage)
}
