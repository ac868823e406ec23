import {
  catalogue,
  type FamilyKey,
  type FamilyKeyOfType,
  familyKeys,
  fullName,
  type LabelsOf,
} from './catalogue.js'
import type { ExpositionFamily, ExpositionSample } from './exposition.js'
import type { ExpositionBlock } from './exposition-block.js'

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

/** Families that take set(): every type but histogram. */
export type SettableFamilyKey = FamilyKeyOfType<'gauge' | 'counter' | 'untyped'>

/**
 * What series are written into: a MetricSet (one scrape's samples) or an exposition block being
 * rendered (a snapshot's families, rendered once). Both are typed from the catalogue.
 */
export interface MetricSink {
  set<K extends SettableFamilyKey>(key: K, labels: LabelsOf<K>, value: number): void
  histogram<K extends FamilyKeyOfType<'histogram'>>(
    key: K,
    labels: LabelsOf<K>,
    histogram: HistogramSnapshot,
  ): void
}

/**
 * What collectors write into during one scrape: samples keyed by catalogue family. Only declared
 * families can be named (typed), and label names are checked against the declaration, so nothing
 * outside the catalogue can reach the exposition. A collector may also attach blocks: families
 * rendered ahead of the scrape (from the same catalogue), served as they are.
 */
export class MetricSet implements MetricSink {
  readonly #values = new Map<FamilyKey, GaugeSample[]>()
  readonly #histograms = new Map<FamilyKey, HistogramSample[]>()
  readonly #blocks: ExpositionBlock[] = []

  set<K extends SettableFamilyKey>(key: K, labels: LabelsOf<K>, value: number): void {
    checkLabels(key, labels)
    let samples = this.#values.get(key)
    if (!samples) {
      samples = []
      this.#values.set(key, samples)
    }
    samples.push({ labels, value })
  }

  histogram<K extends FamilyKeyOfType<'histogram'>>(
    key: K,
    labels: LabelsOf<K>,
    histogram: HistogramSnapshot,
  ): void {
    checkLabels(key, labels)
    if (histogram.cumulativeCounts.length !== histogram.upperBounds.length) {
      throw new RangeError(`${key}: one cumulative count per upper bound expected`)
    }
    let samples = this.#histograms.get(key)
    if (!samples) {
      samples = []
      this.#histograms.set(key, samples)
    }
    samples.push({ labels, histogram })
  }

  /** Serves `block`'s families as rendered; none of them may also get samples in this set. */
  attach(block: ExpositionBlock): void {
    this.#blocks.push(block)
  }

  /** The attached blocks, in the order attached. */
  get blocks(): readonly ExpositionBlock[] {
    return this.#blocks
  }

  /** Moves every sample of `other` into this set (used to accept a successful collector's output). */
  absorb(other: MetricSet): void {
    this.#blocks.push(...other.#blocks)
    for (const [key, samples] of other.#values) {
      const own = this.#values.get(key)
      if (own) own.push(...samples)
      else this.#values.set(key, [...samples])
    }
    for (const [key, samples] of other.#histograms) {
      const own = this.#histograms.get(key)
      if (own) own.push(...samples)
      else this.#histograms.set(key, [...samples])
    }
  }

  /** Samples of one family, for tests and pages; empty when nothing was emitted. */
  samples(key: FamilyKey): readonly GaugeSample[] {
    return this.#values.get(key) ?? []
  }

  /**
   * The families with samples, in catalogue order, named under `namespace`; the attached blocks'
   * families come separately (`blocks`). Throws if a family is in both, which would repeat it.
   */
  toExposition(namespace: string): ExpositionFamily[] {
    const families: ExpositionFamily[] = []
    for (const key of familyKeys) {
      const block = this.#blocks.find((candidate) => candidate.keys.has(key))
      if (block && (this.#values.has(key) || this.#histograms.has(key))) {
        throw new Error(`${key}: samples written next to a rendered block holding the family`)
      }
      const definition = catalogue[key]
      const name = fullName(namespace, key)
      const samples: ExpositionSample[] = []
      for (const { labels, value } of this.#values.get(key) ?? []) {
        samples.push({ name, labels: Object.entries(labels), value })
      }
      for (const { labels, histogram } of this.#histograms.get(key) ?? []) {
        samples.push(...histogramSamples(name, Object.entries(labels), histogram))
      }
      if (samples.length > 0) families.push({ name, help: definition.help, type: definition.type, samples })
    }
    return families
  }
}

function checkLabels(key: FamilyKey, labels: Readonly<Record<string, string>>): void {
  const declared = catalogue[key].labels as readonly string[]
  const given = Object.keys(labels)
  if (given.length !== declared.length || !declared.every((name) => Object.hasOwn(labels, name))) {
    throw new UndeclaredLabelsError(
      `${key}: labels {${given.join(',')}} do not match the catalogue's {${declared.join(',')}}`,
    )
  }
}

export function histogramSamples(
  name: string,
  labels: ReadonlyArray<readonly [string, string]>,
  histogram: HistogramSnapshot,
): ExpositionSample[] {
  const samples: ExpositionSample[] = histogram.upperBounds.map((bound, index) => ({
    name: `${name}_bucket`,
    labels: [...labels, ['le', formatBound(bound)]],
    value: histogram.cumulativeCounts[index] ?? 0,
  }))
  samples.push({ name: `${name}_bucket`, labels: [...labels, ['le', '+Inf']], value: histogram.count })
  samples.push({ name: `${name}_sum`, labels, value: histogram.sum })
  samples.push({ name: `${name}_count`, labels, value: histogram.count })
  return samples
}

/** `le` values as Prometheus clients write them: integers without a fraction, no exponent below 1e21. */
export function formatBound(bound: number): string {
  return Number.isFinite(bound) ? String(bound) : bound > 0 ? '+Inf' : '-Inf'
}
