import {
  type ExposedFamily,
  exposedFamilies,
  type Families,
  type HistogramName,
  type LabelsOf,
  type SettableName,
} from '../families.js'
import {
  type HistogramSnapshot,
  type MetricSink,
  UndeclaredFamilyError,
  UndeclaredLabelsError,
} from '../metric-set.js'
import { type BlockFamily, chunksIn } from './block.js'
import { ByteChunks } from './byte-chunks.js'
import {
  type ExpositionFamily,
  type ExpositionFormat,
  type ExpositionType,
  escapeLabelValue,
  familyHeader,
  formatBound,
  formatValue,
  histogramSumAndCount,
  labelPairs,
  samplesDifferByFormat,
} from './format.js'

/**
 * How the exporter's own families are named: the namespace prefix (`METRICS_NAMESPACE`), and
 * labels every one of their samples carries (`METRICS_SERVER_LABEL` gives `server`, as MinIO puts
 * on each of its samples). A plain string is a namespace with no such labels.
 */
export interface ExpositionNaming {
  readonly namespace: string
  readonly constLabels?: Readonly<Record<string, string>>
}

interface PendingFamily {
  readonly key: string
  /** Full name, namespace included. */
  readonly name: string
  readonly help: string
  readonly type: ExpositionType
  readonly labelNames: readonly string[]
  /** What each value is multiplied by: 1, or a MinIO unit's scale (exposedFamily). */
  readonly scale: number
  /** The sample lines: the text format's, and OpenMetrics' too unless `openmetrics` is set. */
  readonly bytes: ByteChunks
  /** OpenMetrics' sample lines, for a family whose lines differ by format (a gauge histogram). */
  readonly openmetrics: ByteChunks | undefined
}

/**
 * The one renderer of the exposition formats: a MetricSink that writes what is written into it as
 * exposition text, straight into buffers, one set per family. No long strings are built (joining
 * and converting them would hold the thread for tens of milliseconds), only one short string per
 * line. A snapshot's families are rendered by it once (usage-render.ts and its worker), a scrape's
 * own families by it on every scrape (scrape-assembler.ts), prom-client's runtime families
 * included (writeFamily). families() gives the declared families in declaration order with their
 * declared help and type, then the others in the order written, each with its header lines in
 * both formats: the sample lines are the same in both, but for a gauge histogram's sum and count
 * (`_gsum`/`_gcount` in OpenMetrics), whose family keeps a second set of lines.
 */
export class ExpositionWriter<F extends Families> implements MetricSink<F> {
  /** Each declared family's name, type and scale under the namespace, resolved once per namespace. */
  readonly #exposed: ReadonlyMap<string, ExposedFamily>
  /** `name="value",...` of the naming's constant labels, appended to every declared family's. */
  readonly #constPairs: string
  readonly #constNames: readonly string[]
  readonly #declared: F
  readonly #firstChunkBytes: number
  readonly #families = new Map<string, PendingFamily>()
  /** Families written by writeFamily, in order. */
  readonly #others: PendingFamily[] = []
  /** The last label set rendered: a bucket's labels object is reused for most of its series. */
  #lastLabels: object | undefined
  #lastNames: readonly string[] | undefined
  #lastPairs = ''

  /**
   * `firstChunkBytes`: the first buffer of each family; the default suits a snapshot's families
   * (thousands of lines), a scrape's own families (a few lines each) take a smaller one.
   */
  constructor(
    naming: string | ExpositionNaming,
    declared: F,
    options: { readonly firstChunkBytes?: number } = {},
  ) {
    const { namespace, constLabels = {} } = typeof naming === 'string' ? { namespace: naming } : naming
    this.#exposed = exposedFamilies(namespace, declared)
    this.#constNames = Object.keys(constLabels)
    this.#constPairs = labelPairs(Object.entries(constLabels))
    this.#declared = declared
    this.#firstChunkBytes = options.firstChunkBytes ?? FIRST_CHUNK_BYTES
  }

  set<K extends SettableName<F>>(key: K, labels: LabelsOf<F, K>, value: number): void {
    const family = this.#family(key)
    const pairs = this.#pairs(family, labels)
    const scaled = family.scale === 1 ? value : value * family.scale
    writeBoth(family, `${family.name}${pairs ? `{${pairs}}` : ''} ${formatValue(scaled)}\n`)
  }

  histogram<K extends HistogramName<F>>(key: K, labels: LabelsOf<F, K>, histogram: HistogramSnapshot): void {
    const family = this.#family(key)
    const pairs = this.#pairs(family, labels)
    const prefix = `${family.name}_bucket{${pairs ? `${pairs},` : ''}le="`
    histogram.upperBounds.forEach((bound, index) => {
      const count = histogram.cumulativeCounts[index] ?? 0
      writeBoth(family, `${prefix}${formatBound(bound)}"} ${formatValue(count)}\n`)
    })
    writeBoth(family, `${prefix}+Inf"} ${formatValue(histogram.count)}\n`)
    const braces = pairs ? `{${pairs}}` : ''
    family.bytes.write(histogramSumAndCount(family, braces, 'text', histogram))
    family.openmetrics?.write(histogramSumAndCount(family, braces, 'openmetrics', histogram))
  }

  /**
   * A family outside the declaration, with its samples already named (prom-client's runtime
   * families): written after the declared ones, its labels in the order given.
   */
  writeFamily(family: ExpositionFamily): void {
    const pending: PendingFamily = {
      key: family.name,
      name: family.name,
      help: family.help,
      type: family.type,
      scale: 1,
      labelNames: [],
      bytes: new ByteChunks(this.#firstChunkBytes),
      // Samples come named, so their lines are the same in both formats whatever the type.
      openmetrics: undefined,
    }
    for (const sample of family.samples) {
      const pairs = labelPairs(sample.labels)
      pending.bytes.write(`${sample.name}${pairs ? `{${pairs}}` : ''} ${formatValue(sample.value)}\n`)
    }
    this.#others.push(pending)
  }

  /**
   * The buffers filled so far, per family, handed over and forgotten (a worker compresses them as
   * it goes instead of holding all the text); families() then gives the rest. `openmetrics`: the
   * OpenMetrics lines of the families whose lines differ by format (a gauge histogram's).
   */
  takeFilledChunks(format: ExpositionFormat = 'text'): Map<string, Buffer[]> {
    const taken = new Map<string, Buffer[]>()
    for (const [key, family] of this.#families) {
      const bytes = format === 'text' ? family.bytes : family.openmetrics
      const chunks = bytes?.takeFilled() ?? []
      if (chunks.length > 0) taken.set(key, chunks)
    }
    return taken
  }

  /** The families written: the declared in declaration order, then the others, with both headers. */
  families(): BlockFamily[] {
    const ordered: BlockFamily[] = []
    for (const key of Object.keys(this.#declared)) {
      const family = this.#families.get(key)
      if (family) ordered.push(finished(family))
    }
    for (const family of this.#others) ordered.push(finished(family))
    return ordered
  }

  #family(key: string): PendingFamily {
    let family = this.#families.get(key)
    if (!family) {
      const definition = Object.hasOwn(this.#declared, key) ? this.#declared[key] : undefined
      const exposed = this.#exposed.get(key)
      if (!definition || !exposed)
        throw new UndeclaredFamilyError(`${key}: not declared by the writer's families`)
      const clash = definition.labels.find((label) => this.#constNames.includes(label))
      if (clash !== undefined)
        throw new UndeclaredLabelsError(`${key}: its label ${clash} is also a constant label`)
      family = {
        key,
        name: exposed.name,
        help: definition.help,
        type: exposed.type,
        scale: exposed.scale,
        labelNames: definition.labels,
        bytes: new ByteChunks(this.#firstChunkBytes),
        openmetrics: samplesDifferByFormat(definition.type)
          ? new ByteChunks(this.#firstChunkBytes)
          : undefined,
      }
      this.#families.set(key, family)
    }
    return family
  }

  /** `name="value",...` in the declared label order; throws when a declared label is missing. */
  #pairs(family: PendingFamily, labels: Readonly<Record<string, string>>): string {
    if (labels === this.#lastLabels && family.labelNames === this.#lastNames) return this.#lastPairs
    let pairs = ''
    for (let index = 0; index < family.labelNames.length; index++) {
      const name = family.labelNames[index] as string
      const value = labels[name]
      if (value === undefined) {
        throw new UndeclaredLabelsError(`${family.key}: label ${name} missing`)
      }
      pairs += `${index ? ',' : ''}${name}="${escapeLabelValue(value)}"`
    }
    if (this.#constPairs) pairs += pairs ? `,${this.#constPairs}` : this.#constPairs
    this.#lastLabels = labels
    this.#lastNames = family.labelNames
    this.#lastPairs = pairs
    return pairs
  }
}

/** A line the same in both formats. */
function writeBoth(family: PendingFamily, line: string): void {
  family.bytes.write(line)
  family.openmetrics?.write(line)
}

function finished(family: PendingFamily): BlockFamily {
  const chunks = family.bytes.finish()
  return {
    key: family.key,
    headers: headersOf(family),
    chunks,
    ...(family.openmetrics ? { openmetricsChunks: family.openmetrics.finish() } : {}),
  }
}

type Headers = Readonly<Record<ExpositionFormat, Buffer>>

/**
 * Header lines by name, help and type: the same few dozen families are written on every scrape.
 * Bounded: emptied when full (it never is: families are declared, runtime ones fixed).
 */
const headerCache = new Map<string, Headers>()
const HEADER_CACHE_ENTRIES = 4096

/** A family's header lines in both formats (one buffer when they are the same). */
function headersOf(family: PendingFamily): Headers {
  const cacheKey = `${family.name}\n${family.type}\n${family.help}`
  let headers = headerCache.get(cacheKey)
  if (!headers) {
    const text = familyHeader(family, 'text')
    const openmetrics = familyHeader(family, 'openmetrics')
    const textHeader = Buffer.from(text, 'utf8')
    headers = {
      text: textHeader,
      openmetrics: openmetrics === text ? textHeader : Buffer.from(openmetrics, 'utf8'),
    }
    if (headerCache.size >= HEADER_CACHE_ENTRIES) headerCache.clear()
    headerCache.set(cacheKey, headers)
  }
  return headers
}

/** The buffers of `families` in `format`, in order: each family's header lines, then its samples. */
export function familyParts(families: readonly BlockFamily[], format: ExpositionFormat): Buffer[] {
  return families.flatMap((family) => [family.headers[format], ...chunksIn(family, format)])
}

const FIRST_CHUNK_BYTES = 16 << 10
