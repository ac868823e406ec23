import type { ExpositionBlock } from './exposition/block.js'
import type { Families, FamilyName, HistogramName, LabelsOf, SettableName } from './families.js'

export interface GaugeSample {
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** A histogram as Prometheus exposes it: cumulative counts per upper bound (+Inf implied). */
export interface HistogramSnapshot {
  readonly upperBounds: readonly number[]
  /** Cumulative counts, one per upper bound (observations <= bound). */
  readonly cumulativeCounts: readonly number[]
  readonly sum: number
  readonly count: number
}

interface HistogramSample {
  readonly labels: Readonly<Record<string, string>>
  readonly histogram: HistogramSnapshot
}

export class UndeclaredLabelsError extends Error {}
/** A family the set was not given: a collector writing what it did not declare. */
export class UndeclaredFamilyError extends Error {}

/**
 * What series are written into: a MetricSet (one scrape's samples) or an exposition block being
 * rendered (a snapshot's families, rendered once). Both are typed from the writer's declaration.
 */
export interface MetricSink<F extends Families> {
  set<K extends SettableName<F>>(name: K, labels: LabelsOf<F, K>, value: number): void
  histogram<K extends HistogramName<F>>(name: K, labels: LabelsOf<F, K>, histogram: HistogramSnapshot): void
}

/**
 * What collectors write into during one scrape: samples keyed by family name, limited to the
 * families the set was given (the collector's own declaration). Only those can be named (typed),
 * and names and label names are checked at emission, so nothing undeclared can reach the
 * exposition. A collector may also attach blocks: families rendered ahead of the scrape (from its
 * declaration too), served as they are.
 */
export class MetricSet<F extends Families = Families> implements MetricSink<F> {
  readonly #families: F
  readonly #values = new Map<string, GaugeSample[]>()
  readonly #histograms = new Map<string, HistogramSample[]>()
  readonly #blocks: ExpositionBlock[] = []

  constructor(families: F) {
    this.#families = families
  }

  /** The families this set accepts, in exposition order. */
  get families(): F {
    return this.#families
  }

  set<K extends SettableName<F>>(name: K, labels: LabelsOf<F, K>, value: number): void {
    this.#check(name, labels)
    let samples = this.#values.get(name)
    if (!samples) {
      samples = []
      this.#values.set(name, samples)
    }
    samples.push({ labels, value })
  }

  histogram<K extends HistogramName<F>>(name: K, labels: LabelsOf<F, K>, histogram: HistogramSnapshot): void {
    this.#check(name, labels)
    if (histogram.cumulativeCounts.length !== histogram.upperBounds.length) {
      throw new RangeError(`${name}: one cumulative count per upper bound expected`)
    }
    let samples = this.#histograms.get(name)
    if (!samples) {
      samples = []
      this.#histograms.set(name, samples)
    }
    samples.push({ labels, histogram })
  }

  /** Serves `block`'s families as rendered; none of them may also get samples in this set. */
  attach(block: ExpositionBlock): void {
    for (const name of block.keys) {
      if (!Object.hasOwn(this.#families, name)) {
        throw new UndeclaredFamilyError(`${name}: attached in a block but not declared`)
      }
    }
    this.#blocks.push(block)
  }

  /** The attached blocks, in the order attached. */
  get blocks(): readonly ExpositionBlock[] {
    return this.#blocks
  }

  /**
   * Moves every sample of `other` into this set (used to accept a successful collector's output);
   * this set must accept every family `other` does.
   */
  absorb(other: MetricSet): void {
    for (const name of Object.keys(other.#families)) {
      if (!Object.hasOwn(this.#families, name)) {
        throw new UndeclaredFamilyError(`${name}: not among the families of the set absorbing it`)
      }
    }
    this.#blocks.push(...other.#blocks)
    for (const [name, samples] of other.#values) {
      const own = this.#values.get(name)
      if (own) own.push(...samples)
      else this.#values.set(name, [...samples])
    }
    for (const [name, samples] of other.#histograms) {
      const own = this.#histograms.get(name)
      if (own) own.push(...samples)
      else this.#histograms.set(name, [...samples])
    }
  }

  /** Samples of one family, for tests and pages; empty when nothing was emitted. */
  samples(name: FamilyName<F>): readonly GaugeSample[] {
    return this.#values.get(name) ?? []
  }

  /**
   * Writes every sample into `sink` (the exposition writer), family by family in declaration order;
   * the attached blocks' families come separately (`blocks`). Throws if a family is in both,
   * which would repeat it.
   */
  writeTo(sink: MetricSink<F>): void {
    for (const name of Object.keys(this.#families)) {
      const values = this.#values.get(name)
      const histograms = this.#histograms.get(name)
      if (!values && !histograms) continue
      if (this.#blocks.some((block) => block.keys.has(name))) {
        throw new Error(`${name}: samples written next to a rendered block holding the family`)
      }
      // The set checked names and labels as they were written.
      const untyped = sink as unknown as MetricSink<Families>
      for (const { labels, value } of values ?? []) untyped.set(name as never, labels as never, value)
      for (const { labels, histogram } of histograms ?? []) {
        untyped.histogram(name as never, labels as never, histogram)
      }
    }
  }

  #check(name: string, labels: Readonly<Record<string, string>>): void {
    const definition = Object.hasOwn(this.#families, name) ? this.#families[name] : undefined
    if (!definition) throw new UndeclaredFamilyError(`${name}: not declared by the collector writing it`)
    checkLabels(definition, labels)
  }
}

function checkLabels(
  definition: { readonly name: string; readonly labels: readonly string[] },
  labels: Readonly<Record<string, string>>,
): void {
  const declared = definition.labels
  const given = Object.keys(labels)
  if (given.length !== declared.length || !declared.every((name) => Object.hasOwn(labels, name))) {
    throw new UndeclaredLabelsError(
      `${definition.name}: labels {${given.join(',')}} do not match the declaration's {${declared.join(',')}}`,
    )
  }
}
