import { usageCollectorFamilies, writeSnapshotSeries } from '../src/collectors/usage-series.js'
import { formatValue } from '../src/metrics/exposition/format.js'
import { ExpositionWriter } from '../src/metrics/exposition/writer.js'
import { generateSnapshot } from '../test/support/usage-snapshots.js'
import { type BenchRow, median, report } from './support/report.js'

/**
 * What printing values and naming families cost where a snapshot is rendered (once per snapshot,
 * on the render thread): formatValue, which prints non-integers with at most 15 significant
 * digits, against the shortest form, what it printed before (integers, the most of a snapshot's values,
 * and the fractions a snapshot holds; and values that all need rounding, the worst case); and a whole snapshot of
 * 2,000 buckets rendered under the default namespace and under `minio`, whose families are
 * served under MinIO's names (resolved once per namespace, so the two must cost the same).
 * Medians of 10 runs each, the two compared run in turn.
 */

const VALUES = 1_000_000
const RUNS = 10
const BUCKETS = 2_000
const FORMAT_TARGET = 1.25
const NOISY_TARGET = 5
const NAMESPACE_TARGET = 1.15

const integers = Array.from({ length: VALUES }, (_, index) => index * 4099 + 7)
// The fractions a snapshot serves: durations in whole nanoseconds, millisecond timestamps.
const fractions = Array.from({ length: VALUES }, (_, index) =>
  index % 2 ? Math.round(index * 731.3) / 1e9 : (1_796_222_071_035 + index) / 1000,
)
// The worst case: every value carries binary noise and is rounded (a sum, a price product).
const noisy = Array.from({ length: VALUES }, (_, index) => (index + 0.1) * 0.7 + 0.2)

/** Collects garbage before a measurement, so one run's garbage is not the next one's pause. */
function collect(): void {
  ;(globalThis as { gc?: () => void }).gc?.()
}

/** Ns per value of printing every value of `values` once. */
function printRun(values: readonly number[], print: (value: number) => string): number {
  collect()
  let length = 0
  const started = process.hrtime.bigint()
  for (const value of values) length += print(value).length
  const ns = Number(process.hrtime.bigint() - started) / values.length
  if (length === 0) throw new Error('nothing printed')
  return ns
}

/**
 * Median ms of `a` and of `b`, run in turn, ABBA order, so neither always runs first (after a
 * warm-up of both): a run's JIT state or a busy moment of the machine weighs on both alike.
 */
function paired(a: () => number, b: () => number): readonly [number, number] {
  a()
  b()
  const as: number[] = []
  const bs: number[] = []
  for (let run = 0; run < RUNS; run++) {
    if (run % 2) {
      bs.push(b())
      as.push(a())
    } else {
      as.push(a())
      bs.push(b())
    }
  }
  return [median(as), median(bs)]
}

const { snapshot } = generateSnapshot({ buckets: BUCKETS, objectsPerBucket: 20 })

/** Ms to render the snapshot's series into buffers under `namespace`. */
function renderMs(namespace: string): number {
  collect()
  const started = performance.now()
  const writer = new ExpositionWriter(namespace, usageCollectorFamilies)
  writeSnapshotSeries(writer, snapshot)
  if (writer.families().length === 0) throw new Error('nothing rendered')
  return performance.now() - started
}

/** formatValue as it was: the shortest form that reads back, noise included. */
function shortest(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value)
}

const formatRow = (kind: string, values: readonly number[], target: number): BenchRow => {
  const [ours, base] = paired(
    () => printRun(values, formatValue),
    () => printRun(values, shortest),
  )
  return {
    name: `formatValue, 1,000,000 ${kind}`,
    figure: `${ours.toFixed(0)} ns a value`,
    baseline: `shortest form ${base.toFixed(0)} ns`,
    ratio: ours / base,
    target: `<= ${target}x`,
    pass: ours / base <= target,
  }
}

const rows: BenchRow[] = [
  formatRow('integers', integers, FORMAT_TARGET),
  formatRow('fractions (ns durations, ms timestamps)', fractions, FORMAT_TARGET),
  formatRow('noisy fractions, each rounded', noisy, NOISY_TARGET),
]
const [ours, minio] = paired(
  () => renderMs('objstore'),
  () => renderMs('minio'),
)
rows.push({
  name: `render a snapshot of ${BUCKETS.toLocaleString('en')} buckets, METRICS_NAMESPACE=minio`,
  figure: `${minio.toFixed(1)} ms`,
  baseline: `objstore ${ours.toFixed(1)} ms`,
  ratio: minio / ours,
  target: `<= ${NAMESPACE_TARGET}x`,
  pass: minio / ours <= NAMESPACE_TARGET,
})
report(rows)
