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

/** Every figure's fold step for one bucket: the figures a listing gives. */
export function figureFolds(options: UsageFoldOptions): FigureFold<FigureValues>[] {
  return LISTED.flatMap((figure) => {
    const fold = figure.fold?.(options)
    return fold ? [fold as FigureFold<FigureValues>] : []
  })
}

/** Each listed property with how it combines, in the list's order. */
export const FIGURE_COMBINATIONS: readonly {
  readonly path: string
  readonly combination: Combination<unknown>
}[] = LISTED.flatMap((figure) =>
  Object.entries(figure.combine as Record<string, Combination<unknown>>).map(([path, combination]) => ({
    path,
    combination,
  })),
)

/** Two parts' values of the figures that do not add up, as each figure merges them. */
export function mergedFigures(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const { path, combination } of FIGURE_COMBINATIONS) {
    if (combination.additive) continue
    const value =
      a[path] === undefined ? b[path] : b[path] === undefined ? a[path] : combination.merge(a[path], b[path])
    if (value !== undefined) merged[path] = value
  }
  return merged
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
  let names = Object.keys(families)
  for (const { figure, place } of placesInOrder(
    (figure) => Object.keys(figure.families as Families),
    'family',
  ))
    names = placed(names, Object.keys(figure.families as Families), place)
  return Object.fromEntries(names.map((name) => [name, families[name]])) as F
}

/**
 * `entries` (docs/cardinality.md's additive or other figures, usage-sums.ts) with the listed
 * figures' entries among them each before the property its figure names (keepsPlace), the others
 * last, in the list's order.
 */
export function inPropertyPlaces<T extends { readonly path: string }>(entries: readonly T[]): T[] {
  let paths = [...new Set(entries.map(({ path }) => path))]
  for (const { figure, place } of placesInOrder((figure) => Object.keys(figure.combine), 'property'))
    paths = placed(paths, Object.keys(figure.combine), place)
  return paths.flatMap((path) => entries.filter((entry) => entry.path === path))
}

/**
 * The figures that keep a place, each after those whose names its place names (quota's families
 * go before the sizes', which go before the times'): a name is placed once it is in its own place.
 */
function placesInOrder(
  namesOf: (figure: AnyFigure) => readonly string[],
  kind: 'family' | 'property',
): { figure: AnyFigure; place: Place }[] {
  const pending = LISTED.flatMap((figure) =>
    figure.keepsPlace ? [{ figure, place: figure.keepsPlace[kind] as Place }] : [],
  )
  const ordered: { figure: AnyFigure; place: Place }[] = []
  while (pending.length > 0) {
    const ready = pending.findIndex(({ figure, place }) => {
      const anchors = typeof place === 'string' ? [place] : Object.values(place)
      return !pending.some(
        (other) => other.figure !== figure && namesOf(other.figure).some((name) => anchors.includes(name)),
      )
    })
    if (ready < 0) throw new Error(`figures keep places before each other's ${kind} names in a circle`)
    ordered.push(...pending.splice(ready, 1))
  }
  return ordered
}

/** `order` with `moved` put back where `place` says: all before one name, or each before its own. */
function placed(order: readonly string[], moved: readonly string[], place: Place): string[] {
  if (typeof place === 'string') return placedBefore(order, moved, place)
  let out = [...order]
  for (const anchor of new Set(moved.map((name) => place[name]))) {
    if (anchor === undefined) throw new Error(`a figure keeps the place of only some of ${moved.join(', ')}`)
    out = placedBefore(
      out,
      moved.filter((name) => place[name] === anchor),
      anchor,
    )
  }
  return out
}

/** `order` with `moved` (those of them it holds) taken out and put back before `anchor`. */
function placedBefore(order: readonly string[], moved: readonly string[], anchor: string): string[] {
  const present = moved.filter((name) => order.includes(name))
  if (present.length === 0) return [...order]
  const rest = order.filter((name) => !moved.includes(name))
  const at = rest.indexOf(anchor)
  if (at < 0) throw new Error(`a figure keeps its place before ${anchor}, which is not there`)
  return [...rest.slice(0, at), ...present, ...rest.slice(at)]
}

/** Writes every listed figure's families from a bucket's record. */
export function writeFigures(
  out: MetricSink<Families>,
  bucket: string,
  usage: RecordTotals & Frozen<FigureValues>,
): void {
  for (const figure of LISTED) figure.write(out, bucket, usage, usage)
}
