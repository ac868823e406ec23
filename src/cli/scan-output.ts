import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { usageCollectorFamilies, writeSnapshotSeries } from '../collectors/usage-series.js'
import { SeriesCounter } from '../exposition/usage-budget.js'
import type { SecretRedactor } from '../logging/secret-redactor.js'
import { type ExpositionNaming, ExpositionWriter, familyParts } from '../metrics/exposition/writer.js'
import type { UsageSnapshot } from '../snapshot/snapshot.js'
import { scanJson } from '../snapshot/snapshot-json.js'
import { figuresOf } from '../snapshot/stored-records.js'

/** What `scan --once` prints: a du-like table, JSON, or the text exposition of the usage families. */
export type ScanFormat = 'table' | 'json' | 'prometheus'

export function renderScan(
  snapshot: UsageSnapshot,
  format: ScanFormat,
  options: {
    readonly naming: ExpositionNaming
    readonly bytes: boolean
    /** BUCKET_METRICS's per-bucket groups (`--format prometheus`); undefined for every group. */
    readonly groups?: readonly string[] | undefined
  },
): Buffer {
  switch (format) {
    case 'json':
      return Buffer.from(`${JSON.stringify(scanJson(snapshot), null, 2)}\n`)
    case 'prometheus':
      return prometheusText(snapshot, options.naming, options.groups)
    default:
      return Buffer.from(bucketTable(snapshot, options.bytes))
  }
}

/**
 * `output` with every secret blanked (`[redacted]` needs no escape in a JSON string or a label
 * value). Untouched, not decoded and encoded again, when nothing in it matches.
 */
export function redactedOutput(output: Buffer, redactor: SecretRedactor): Buffer {
  if (!redactor.active) return output
  const text = output.toString()
  const redacted = redactor.redact(text)
  return redacted === text ? output : Buffer.from(redacted)
}

/**
 * The usage families of `snapshot` in the Prometheus text format, by the exporter's one renderer
 * (the same lines /metrics serves for this snapshot, BUCKET_METRICS's groups; not BUCKETS_TOP_N or
 * MAX_SERIES), for node_exporter's textfile collector.
 */
function prometheusText(
  snapshot: UsageSnapshot,
  naming: ExpositionNaming,
  groups: readonly string[] | undefined,
): Buffer {
  const writer = new ExpositionWriter(naming, usageCollectorFamilies)
  writeSnapshotSeries(new SeriesCounter(usageCollectorFamilies, writer, groups), snapshot)
  return Buffer.concat(familyParts(writer.families(), 'text'))
}

/**
 * Like `du -h` over buckets: size, objects, name, a total line last. Sizes in powers of 1024 with
 * du's suffixes (K, M, G...), or in bytes (`--bytes`). A bucket this scan could not measure shows
 * `-` and `(failed)`.
 */
function bucketTable(snapshot: UsageSnapshot, inBytes: boolean): string {
  const size = (bytes: number) => (inBytes ? String(bytes) : humanBytes(bytes))
  const rows: [string, string, string][] = []
  let bytes = 0
  let objects = 0
  let failed = 0
  for (const record of snapshot.buckets) {
    const usage = record.scanSuccess ? figuresOf(record) : undefined
    if (!usage) failed++
    bytes += usage?.bytes ?? 0
    objects += usage?.objects ?? 0
    rows.push([
      usage ? size(usage.bytes) : '-',
      usage ? String(usage.objects) : '-',
      usage ? record.name : `${record.name} (failed)`,
    ])
  }
  const summary = `total (${snapshot.buckets.length} buckets${failed ? `, ${failed} failed` : ''}${snapshot.sourceUp ? '' : ', source down'})`
  rows.push([size(bytes), String(objects), summary])
  const header: [string, string, string] = ['SIZE', 'OBJECTS', 'BUCKET']
  const widths = [0, 1].map((column) => Math.max(...[header, ...rows].map((row) => row[column]?.length ?? 0)))
  const line = (row: [string, string, string]) =>
    `${row[0].padStart(widths[0] ?? 0)}  ${row[1].padStart(widths[1] ?? 0)}  ${row[2]}`
  return `${[header, ...rows].map(line).join('\n')}\n`
}

/** du -h's notation: one decimal below 10 of a unit, whole numbers above, rounded up as du does. */
function humanBytes(bytes: number): string {
  const units = ['K', 'M', 'G', 'T', 'P', 'E']
  if (bytes < 1024) return String(bytes)
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  const shown = value < 10 ? Math.ceil(value * 10) / 10 : Math.ceil(value)
  // 9.96 rounds up to 10.0: written as 10, as du does.
  const text = shown < 10 ? shown.toFixed(1) : String(shown)
  return `${text}${units[unit]}`
}

/**
 * Writes `data` to `path` atomically: a temporary file beside it (same folder, so the rename
 * cannot cross filesystems; its name does not end in .prom, so the textfile collector never reads
 * it half-written), flushed to disk, then renamed over `path`.
 */
export async function writeAtomically(path: string, data: Buffer): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    const file = await open(temporary, 'w', 0o644)
    try {
      await file.writeFile(data)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
