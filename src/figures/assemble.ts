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
export function figureInvariantProblem(record: RecordTotals & FigureValues): string | undefined {
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
  const familiesOf = (figure: AnyFigure) => Object.keys(figure.families as Families)
  for (const figure of placingOrder(familiesOf, (place) => place.family)) {
    names = placedBefore(names, familiesOf(figure), figure.keepsPlace?.family ?? '')
  }
  return Object.fromEntries(names.map((name) => [name, families[name]])) as F
}

/**
 * `entries` (docs/cardinality.md's additive or other figures, usage-sums.ts) with the listed
 * figures' entries among them each before the property its figure names (keepsPlace), the others
 * last, in the list's order.
 */
export function inPropertyPlaces<T extends { readonly path: string }>(entries: readonly T[]): T[] {
  let paths = [...new Set(entries.map(({ path }) => path))]
  const propertiesOf = (figure: AnyFigure) => Object.keys(figure.combine)
  for (const figure of placingOrder(propertiesOf, (place) => place.property)) {
    paths = placedBefore(paths, propertiesOf(figure), figure.keepsPlace?.property ?? '')
  }
  return paths.flatMap((path) => entries.filter((entry) => entry.path === path))
}

/**
 * The figures that keep their place, each after the figure whose family or property it is placed
 * before (that one is moved first: storage classes before multipart, then times before storage
 * classes), else in the list's order.
 */
function placingOrder(
  namesOf: (figure: AnyFigure) => readonly string[],
  anchorOf: (place: NonNullable<AnyFigure['keepsPlace']>) => string,
): AnyFigure[] {
  let pending = LISTED.filter((figure) => figure.keepsPlace !== undefined)
  const ordered: AnyFigure[] = []
  // Each pass places at least one figure, or the anchors make a loop.
  while (pending.length > 0) {
    const ready = pending.filter((figure) => {
      const anchor = anchorOf(figure.keepsPlace as NonNullable<AnyFigure['keepsPlace']>)
      return !pending.some((other) => other !== figure && namesOf(other).includes(anchor))
    })
    if (ready.length === 0) throw new Error('figures keep their places before each other in a loop')
    ordered.push(...ready)
    pending = pending.filter((figure) => !ready.includes(figure))
  }
  return ordered
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
  usage: RecordTotals & FigureValues,
): void {
  for (const figure of LISTED) figure.write(out, bucket, usage, usage)
}
