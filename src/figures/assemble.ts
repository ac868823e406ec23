/*
 * What is assembled from the list of figures (list.ts): their record properties, their fold steps,
 * how their properties combine, their invariants, their families and writers. Light: the fs walk's
 * threads load it with the fold (no TypeBox; the schema builder is handed in).
 */
import type { Static, TObject } from '@sinclair/typebox'
import { type Families, unionOf } from '../metrics/families.js'
import type { MetricSink } from '../metrics/metric-set.js'
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
export type FigureValues = Partial<Static<TObject<FigureProperties & Record<never, never>>>>

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

/** Writes every listed figure's families from a bucket's record. */
export function writeFigures(out: MetricSink<Families>, bucket: string, usage: FigureValues): void {
  for (const figure of LISTED) figure.write(out, bucket, usage)
}
