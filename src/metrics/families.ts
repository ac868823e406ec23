/**
 * How a collector describes the metric families it may emit (client_golang's Describe): each
 * family keyed by its Prometheus name without the namespace (`METRICS_NAMESPACE`, default
 * `objstore`), with its type, label names and help. The declarations live next to the code that
 * emits them (src/collectors/*); the catalogue is their union (src/collectors/catalogue.ts).
 *
 * Every family is declared under a conventional Prometheus name (base units, plural nouns for
 * counts, `_total` only on counters). A family MinIO also has carries MinIO's v2 name as its
 * `minio` option: under `METRICS_NAMESPACE=minio` the writer serves that name (exposedFamily), so
 * MinIO's dashboards keep working; any other namespace gets the Prometheus name.
 */

/**
 * `gaugehistogram`: a distribution of what is there now (a bucket's object sizes), whose counts
 * go down as well as up: OpenMetrics says so (`gaugehistogram`, `_gsum`/`_gcount`); the classic
 * text format has no such type and gets a `histogram` (exposition/format.ts).
 *
 * No declaration is `untyped`: only a MinIO name served under `METRICS_NAMESPACE=minio` is
 * (exposedType).
 */
export type MetricType = 'gauge' | 'counter' | 'histogram' | 'gaugehistogram'

/** The type a family is served with: its declared type, or `untyped` for some MinIO names. */
type ExposedType = MetricType | 'untyped'

/** The namespace under which families are served with their MinIO names. */
const MINIO_NAMESPACE = 'minio'

/**
 * A family's name in MinIO's v2 metrics, without the namespace, served under
 * `METRICS_NAMESPACE=minio`. `scale`: what the value is multiplied by for MinIO's unit (1e9: MinIO
 * counts nanoseconds where the family counts seconds).
 */
interface MinioName {
  readonly name: string
  readonly scale?: number
}

/** What `family(...)` takes after its help (and its `BUCKET_METRICS` group). */
interface FamilyOptions {
  /** MinIO's v2 name for the family (a string, or a name and a unit scale). */
  readonly minio?: string | MinioName
}

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
  /** MinIO's v2 name, served under `METRICS_NAMESPACE=minio` (FamilyOptions). */
  readonly minio?: MinioName
}

/** Families by name; the declaration order is the exposition order. */
export type Families = Readonly<Record<string, FamilyDefinition>>

interface Shape<T extends MetricType, L extends readonly string[]> {
  readonly type: T
  readonly labels: L
  readonly help: string
  readonly bucketGroup?: string
  readonly minio?: MinioName
}

/**
 * A family with a `bucket` label must name its `BUCKET_METRICS` group; others take none. Either
 * may end with its options.
 */
type RestArguments<L extends readonly string[]> = 'bucket' extends L[number]
  ? [bucketGroup: string, options?: FamilyOptions]
  : [options?: FamilyOptions]

/**
 * One family's type, label names and help; its name is its key in `describe`. A per-bucket
 * family (a `bucket` label) also names its `BUCKET_METRICS` group (`usage`, `sizes`, ...): a
 * lowercase word, the switch operators turn it off with; omitting it fails to typecheck. The
 * options last: `{ minio: 'bucket_usage_object_total' }`, MinIO's name for the family.
 */
export function family<const T extends MetricType, const L extends readonly string[]>(
  type: T,
  labels: L,
  help: string,
  ...rest: RestArguments<L>
): Shape<T, L> {
  const [first, second] = rest as readonly (string | FamilyOptions | undefined)[]
  const group = typeof first === 'string' ? first : undefined
  const options = typeof first === 'object' ? first : typeof second === 'object' ? second : undefined
  const minio = typeof options?.minio === 'string' ? { name: options.minio } : options?.minio
  return {
    type,
    labels,
    help,
    ...(group === undefined ? {} : { bucketGroup: group }),
    ...(minio === undefined ? {} : { minio }),
  }
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
export type SettableName<F extends Families> = FamilyNameOfType<F, 'gauge' | 'counter'>

export function fullName(namespace: string, name: string): string {
  return `${namespace}_${name}`
}

/** A family as served under a namespace: its full name, its type, and the scale of its values. */
export interface ExposedFamily {
  readonly name: string
  readonly type: ExposedType
  /** What each value is multiplied by (1: as written). */
  readonly scale: number
}

/**
 * How a family is served under `namespace`: under `minio`, a family with a MinIO name gets that
 * name (and MinIO's unit); every other family, and every family under any other namespace, its
 * Prometheus name and declared type.
 */
export function exposedFamily(
  namespace: string,
  definition: Pick<FamilyDefinition, 'name' | 'type' | 'minio'>,
): ExposedFamily {
  const minio = namespace === MINIO_NAMESPACE ? definition.minio : undefined
  if (minio === undefined)
    return { name: fullName(namespace, definition.name), type: definition.type, scale: 1 }
  return {
    name: fullName(namespace, minio.name),
    type: exposedType(definition.type, minio.name),
    scale: minio.scale ?? 1,
  }
}

/**
 * The type a MinIO name is served with: `untyped` where the real type and the name disagree by
 * Prometheus' rules (a count named `_total` that is no counter, `cluster_drive_total`; a counter
 * without `_total`, `node_drive_errors_timeout`), which `promtool check metrics` would reject and
 * an OpenMetrics reader would misread; the declared type otherwise.
 */
function exposedType(type: MetricType, name: string): ExposedType {
  const total = name.endsWith('_total')
  if (type === 'counter') return total ? type : 'untyped'
  return total && type === 'gauge' ? 'untyped' : type
}

/**
 * Each family of `declared` as served under `namespace`, resolved once per declaration and
 * namespace (a writer is made per scrape and per snapshot; names are not built per series).
 */
export function exposedFamilies(namespace: string, declared: Families): ReadonlyMap<string, ExposedFamily> {
  let byNamespace = resolved.get(declared)
  if (byNamespace === undefined) {
    byNamespace = new Map()
    resolved.set(declared, byNamespace)
  }
  let families = byNamespace.get(namespace)
  if (families === undefined) {
    // Bounded: a process serves one namespace; only tests use a few.
    if (byNamespace.size >= NAMESPACES_KEPT) byNamespace.clear()
    families = new Map(
      Object.entries(declared).map(([key, definition]) => [key, exposedFamily(namespace, definition)]),
    )
    byNamespace.set(namespace, families)
  }
  return families
}

const NAMESPACES_KEPT = 8
const resolved = new WeakMap<Families, Map<string, ReadonlyMap<string, ExposedFamily>>>()
