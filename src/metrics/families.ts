/**
 * How a collector describes the metric families it may emit (client_golang's Describe): each
 * family keyed by its Prometheus name without the namespace (`METRICS_NAMESPACE`, default
 * `objstore`), with its type, label names and help. The declarations live next to the code that
 * emits them (src/collectors/*); the catalogue is their union (src/collectors/catalogue.ts).
 *
 * Names follow MinIO's v2 conventions where MinIO has the family, so `METRICS_NAMESPACE=minio`
 * gives MinIO-compatible names. Families MinIO lacks use Prometheus base units.
 */

/**
 * `gaugehistogram`: a distribution of what is there now (a bucket's object sizes), whose counts
 * go down as well as up: OpenMetrics says so (`gaugehistogram`, `_gsum`/`_gcount`); the classic
 * text format has no such type and gets a `histogram` (exposition/format.ts).
 *
 * `untyped` is used only for MinIO's count families whose names end in `_total` although they are
 * not counters (`cluster_drive_total`, `bucket_usage_object_total`, ...): keeping MinIO's names
 * keeps MinIO dashboards working, and declaring them untyped rather than gauge is what keeps
 * `promtool check metrics` clean (it rejects `_total` on gauges) without claiming counter semantics.
 */
export type MetricType = 'gauge' | 'counter' | 'histogram' | 'gaugehistogram' | 'untyped'

/** Which part of the exporter emits a family (for docs and for grouping). */
export type FamilyGroup = 'drives' | 'usage' | 'scanner' | 'prices' | 'exporter' | 'logger' | 'test'

interface FamilyDefinition {
  /** Name without the namespace prefix. Counters end in `_total`. */
  readonly name: string
  readonly help: string
  readonly type: MetricType
  readonly labels: readonly string[]
  readonly group: FamilyGroup
  /**
   * Per-bucket families only (those with a `bucket` label): the `BUCKET_METRICS` group that
   * switches the family on or off. Required by `family(...)` for them, so none can miss it.
   */
  readonly bucketGroup?: string
}

/** Families by name; the declaration order is the exposition order. */
export type Families = Readonly<Record<string, FamilyDefinition>>

interface Shape<T extends MetricType, L extends readonly string[]> {
  readonly type: T
  readonly labels: L
  readonly help: string
  readonly bucketGroup?: string
}

/** A family with a `bucket` label must name its `BUCKET_METRICS` group; others take none. */
type BucketGroupArgument<L extends readonly string[]> = 'bucket' extends L[number]
  ? [bucketGroup: string]
  : []

/**
 * One family's type, label names and help; its name is its key in `describe`. A per-bucket
 * family (a `bucket` label) also names its `BUCKET_METRICS` group (`usage`, `sizes`, ...): a
 * lowercase word, the switch operators turn it off with; omitting it fails to typecheck.
 */
export function family<const T extends MetricType, const L extends readonly string[]>(
  type: T,
  labels: L,
  help: string,
  ...bucketGroup: BucketGroupArgument<L>
): Shape<T, L> {
  const [group] = bucketGroup as readonly (string | undefined)[]
  return group === undefined ? { type, labels, help } : { type, labels, help, bucketGroup: group }
}

/** A collector's declaration: each shape given its key as name, and the group that emits it. */
export function describe<
  const G extends FamilyGroup,
  const S extends Readonly<Record<string, Shape<MetricType, readonly string[]>>>,
>(group: G, shapes: S): { readonly [K in keyof S & string]: S[K] & { readonly name: K; readonly group: G } } {
  const described: Record<string, FamilyDefinition> = {}
  for (const [name, shape] of Object.entries(shapes)) described[name] = { ...shape, name, group }
  return described as { readonly [K in keyof S & string]: S[K] & { readonly name: K; readonly group: G } }
}

export class DuplicateFamilyError extends Error {}

/**
 * The union of several declarations, in their order; refuses a family declared twice (two
 * collectors would otherwise write one family and repeat it in the exposition).
 */
export function unionOf<const D extends readonly Families[]>(
  declarations: D,
  owners: readonly string[] = [],
): UnionOfAll<D> {
  const union: Record<string, FamilyDefinition> = {}
  const ownerOf = new Map<string, string>()
  declarations.forEach((declaration, index) => {
    const owner = owners[index] ?? `declaration ${index + 1}`
    for (const [name, definition] of Object.entries(declaration)) {
      const first = ownerOf.get(name)
      if (first !== undefined) {
        throw new DuplicateFamilyError(`family ${name} is declared by both ${first} and ${owner}`)
      }
      ownerOf.set(name, owner)
      union[name] = definition
    }
  })
  return union as UnionOfAll<D>
}

type UnionOfAll<D extends readonly Families[]> = D extends readonly [
  infer First extends Families,
  ...infer Rest extends readonly Families[],
]
  ? First & UnionOfAll<Rest>
  : Families extends D[number]
    ? Families
    : unknown

export type FamilyName<F extends Families> = keyof F & string

/** The label set a family requires, typed from its declaration. */
export type LabelsOf<F extends Families, K extends FamilyName<F>> = F[K]['labels'] extends readonly []
  ? Readonly<Record<string, never>>
  : { readonly [L in F[K]['labels'][number]]: string }

type FamilyNameOfType<F extends Families, T extends MetricType> = {
  [K in FamilyName<F>]: F[K]['type'] extends T ? K : never
}[FamilyName<F>]

/** Whether a family of `type` is written with histogram(): buckets, sum and count. */
export function isHistogram(type: MetricType): type is 'histogram' | 'gaugehistogram' {
  return type === 'histogram' || type === 'gaugehistogram'
}

/** Families that take histogram(): classic and gauge histograms. */
export type HistogramName<F extends Families> = FamilyNameOfType<F, 'histogram' | 'gaugehistogram'>

/** Families that take set(): every type but the histograms. */
export type SettableName<F extends Families> = FamilyNameOfType<F, 'gauge' | 'counter' | 'untyped'>

export function fullName(namespace: string, name: string): string {
  return `${namespace}_${name}`
}
