import client from 'prom-client'
import { type CatalogueName, catalogue, familyNames } from '../../src/collectors/catalogue.js'
import {
  type UsageCollectorFamilies,
  usageCollectorFamilies,
  writeSnapshotSeries,
} from '../../src/collectors/usage-series.js'
import { OBJECT_SIZE_BOUNDS } from '../../src/figures/sizes/ranges.js'
import { exposedFamily, isHistogram } from '../../src/metrics/families.js'
import type { MetricSink } from '../../src/metrics/metric-set.js'
import type { ParsedExposition } from './exposition.js'
import type { GeneratedSnapshot } from './usage-snapshots.js'

/**
 * The idiomatic prom-client way of exporting a usage snapshot, the reference the fast path is
 * compared with (tests: same content; benches: the CPU it costs): a labelled Gauge per family and
 * set() per series, a Histogram fed with observe() per object, then registry.metrics().
 * prom-client has no untyped metric: a family served untyped (MinIO names) comes out as a gauge.
 */
export const SNAPSHOT_FAMILIES: readonly CatalogueName[] = familyNames.filter(
  (key) =>
    (catalogue[key].group === 'usage' || catalogue[key].group === 'scanner') &&
    // The snapshot's families (not the source's request counters, read live from the source).
    Object.hasOwn(usageCollectorFamilies, key) &&
    // The snapshot's age and the running round's progress change with every scrape; they are
    // not part of a snapshot's rendering.
    key !== 'usage_snapshot_age_seconds' &&
    key !== 'scan_round_objects_listed' &&
    key !== 'scan_round_bytes_listed',
)

export function idiomaticRegistry(
  generated: GeneratedSnapshot,
  namespace: string,
  format: 'text' | 'openmetrics',
): client.Registry<client.RegistryContentType> {
  const registry = new client.Registry<client.RegistryContentType>()
  registry.setContentType(
    format === 'text' ? client.Registry.PROMETHEUS_CONTENT_TYPE : client.Registry.OPENMETRICS_CONTENT_TYPE,
  )
  const gauges = new Map<CatalogueName, client.Gauge>()
  const histograms = new Map<CatalogueName, client.Histogram>()
  const counters = new Map<CatalogueName, client.Counter>()
  for (const key of SNAPSHOT_FAMILIES) {
    const { help, labels, type } = catalogue[key]
    const common = {
      name: exposedFamily(namespace, catalogue[key]).name,
      help,
      labelNames: [...labels],
      registers: [registry],
    }
    // prom-client has no gauge histogram: an instrumented program would use a histogram.
    if (isHistogram(type))
      histograms.set(key, new client.Histogram({ ...common, buckets: [...OBJECT_SIZE_BOUNDS] }))
    // A counter (rgw's usage log) as an instrumented program keeps one: increased, never set.
    else if (type === 'counter') counters.set(key, new client.Counter(common))
    else gauges.set(key, new client.Gauge(common))
  }
  const sink: MetricSink<UsageCollectorFamilies> = {
    set(key, labels, value) {
      gauges.get(key)?.set(labels, value)
      counters.get(key)?.inc(labels, value)
    },
    // The histogram is observed object by object below, as an instrumented program would.
    histogram() {},
  }
  writeSnapshotSeries(sink, generated.snapshot)
  const sizes = histograms.get('bucket_object_size_bytes') as client.Histogram
  for (const record of generated.snapshot.buckets) {
    if (!record.usage) continue
    const labels = { bucket: record.name }
    sizes.zero(labels)
    for (const object of generated.objects.get(record.name) ?? []) sizes.observe(labels, object.size)
  }
  return registry
}

/** Full sample names of the snapshot's families (a histogram's _bucket, _sum and _count). */
function snapshotSampleNames(namespace: string): Set<string> {
  const names = new Set<string>()
  for (const key of SNAPSHOT_FAMILIES) {
    const name = exposedFamily(namespace, catalogue[key]).name
    if (isHistogram(catalogue[key].type))
      for (const suffix of ['_bucket', '_sum', '_count', '_gsum', '_gcount']) names.add(name + suffix)
    else names.add(name)
  }
  return names
}

/**
 * The snapshot families of a parsed exposition in a form to compare: one `name{labels} value`
 * line per sample, labels sorted, lines sorted; HELP per family; TYPE per family with untyped
 * (OpenMetrics: unknown) written as gauge, since prom-client cannot say untyped, and a gauge
 * histogram (OpenMetrics: `_gsum`/`_gcount`) as a histogram, since prom-client has none.
 */
export function snapshotContent(
  exposition: ParsedExposition,
  namespace: string,
): { samples: string[]; help: Record<string, string>; types: Record<string, string> } {
  const names = snapshotSampleNames(namespace)
  const samples = exposition.samples
    .filter((sample) => names.has(sample.name))
    .map((sample) => {
      const labels = Object.entries(sample.labels)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      const name = sample.name.replace(/_g(sum|count)$/, '_$1')
      return `${name}{${labels.join(',')}} ${fifteenDigits(sample.value)}`
    })
    .sort()
  // prom-client declares every registered family; the block only those with samples.
  const sampled = new Set(
    exposition.samples.map((sample) => sample.name.replace(/_(g?sum|g?count|bucket)$/, '')),
  )
  const help: Record<string, string> = {}
  const types: Record<string, string> = {}
  for (const key of SNAPSHOT_FAMILIES) {
    const name = exposedFamily(namespace, catalogue[key]).name
    const type = exposition.types.get(name)
    if (type === undefined || !sampled.has(name)) continue
    help[name] = exposition.help.get(name) ?? ''
    types[name] =
      type === 'untyped' || type === 'unknown' ? 'gauge' : type === 'gaugehistogram' ? 'histogram' : type
  }
  return { samples, help, types }
}

/** The exporter prints at most 15 significant digits (no binary noise); prom-client prints 17. */
function fifteenDigits(value: string | number): string {
  const number = Number(value)
  return Number.isFinite(number) && !Number.isInteger(number)
    ? String(Number(number.toPrecision(15)))
    : String(value)
}
