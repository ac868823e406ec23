import { createHash } from 'node:crypto'
import type { SecretRedactor } from '../logging/secret-redactor.js'
import { measuredBytes } from '../scanner/stored-records.js'
import type { ExporterStatus } from './status.js'

/** How many buckets the page lists (the largest). */
const TOP_BUCKETS = 10

export interface LandingPageInput {
  readonly version: string
  readonly nodeVersion: string
  readonly metricsPath: string
  readonly status: ExporterStatus
  /** Blanks the secrets out of any text shown (error messages may quote them, in any encoding). */
  readonly redactor: SecretRedactor
  readonly nowMs: number
}

/**
 * The landing page: what runs, the state of each source, each drive with a capacity bar, the
 * largest buckets and the last scan. Built from the exporter's last scrape and scan; self-contained HTML (no script, no external file).
 */
export function renderLandingPage(input: LandingPageInput): string {
  const { status } = input
  const text = (value: string) => escapeHtml(input.redactor.redact(value))
  const waiting = status.waitingFor()
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>objstore-exporter</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>objstore-exporter</h1>
<p>Object storage capacity and bucket usage for Prometheus.</p>
<nav><a href="${escapeHtml(input.metricsPath)}">Metrics</a> · <a href="/healthz">Health</a> · <a href="/readyz">Readiness</a></nav>
</header>
<section id="build">
<h2>Build</h2>
<dl>
<dt>Version</dt><dd>${escapeHtml(input.version)}</dd>
<dt>Node.js</dt><dd>${escapeHtml(input.nodeVersion)}</dd>
<dt>Metric namespace</dt><dd><code>${escapeHtml(status.namespace)}</code></dd>
<dt>Started</dt><dd>${timestamp(status.startedAtMs, input.nowMs)}</dd>
<dt>Ready</dt><dd>${waiting.length === 0 ? 'yes' : `no, waiting for ${text(waiting.join(', '))}`}</dd>
</dl>
</section>
<section id="sources">
<h2>Sources</h2>
<table>
<thead><tr><th>Collector</th><th>State</th><th>Last scrape</th></tr></thead>
<tbody>
${status
  .collectors()
  .map(
    (outcome) =>
      `<tr data-collector="${escapeHtml(outcome.name)}"><td>${escapeHtml(outcome.name)}</td><td class="state ${outcome.state === 'ok' ? 'ok' : outcome.state === 'failing' ? 'bad' : 'unknown'}">${escapeHtml(outcome.state)}${outcome.error ? `: ${text(outcome.error)}` : ''}</td><td>${outcome.lastRunAtMs === undefined ? 'never' : timestamp(outcome.lastRunAtMs, input.nowMs)}</td></tr>`,
  )
  .join('\n')}
${renderSourceRow(status, input.nowMs, text)}
</tbody>
</table>
</section>
<section id="drives">
<h2>Drives</h2>
${renderDrives(input, text)}
</section>
<section id="buckets">
<h2>Buckets</h2>
${renderBuckets(status, input.nowMs, text)}
</section>
</body>
</html>
`
}

/** The usage source's own row: up, or down with the reason of its last scan (not the collector's "ok"). */
function renderSourceRow(status: ExporterStatus, nowMs: number, text: (value: string) => string): string {
  const snapshot = status.usage()
  const name = snapshot?.sourceName ?? 'usage source'
  const cells = (state: string, className: string) =>
    `<tr data-source="${text(name)}"><td>source <code>${text(name)}</code></td><td class="state ${className}">${state}</td><td>${snapshot ? timestamp(snapshot.completedAtMs, nowMs) : 'first scan running'}</td></tr>`
  if (!snapshot) return cells('unknown', 'unknown')
  if (snapshot.sourceUp) return cells('up', 'ok')
  return cells(`down: ${text(status.sourceFailure() ?? 'no answer at the last scan')}`, 'bad')
}

function renderDrives(input: LandingPageInput, text: (value: string) => string): string {
  const drives = input.status.drives()
  if (drives.length === 0) {
    return '<p class="note" id="no-drives">No drive configured (<code>DRIVES</code> is empty and the source is remote): no capacity is reported.</p>'
  }
  if (drives.every((drive) => drive.state === undefined)) {
    return `<p class="note">${drives.length} drive(s) configured; their state appears after the first scrape of <a href="${escapeHtml(input.metricsPath)}">${escapeHtml(input.metricsPath)}</a>.</p>`
  }
  const rows = drives.map(({ path, state }) => {
    const name = `<td><code>${text(path)}</code></td>`
    if (state === undefined)
      return `<tr data-drive="${text(path)}">${name}<td class="state unknown" colspan="3">not probed yet</td></tr>`
    if (!state.online) {
      return `<tr data-drive="${text(path)}">${name}<td class="state bad" colspan="3">offline: ${text(state.reason)}</td></tr>`
    }
    const { totalBytes, usedBytes, freeBytes } = state.capacity
    // df's Use%: used / (used + available), blocks reserved for root counted in neither.
    const usedShare = usedShareOf(state.capacity)
    // The bar's whole is what df's Use% divides by, so the bar and the figure agree.
    const usable = usedBytes + freeBytes
    return `<tr data-drive="${text(path)}">${name}<td class="bar"><meter min="0" max="${usable}" low="${Math.round(usable * 0.85)}" high="${Math.round(usable * 0.95)}" optimum="0" value="${usedBytes}" title="${percent(usedShare)} used">${percent(usedShare)} used</meter> ${percent(usedShare)} used</td><td>${formatBytes(usedBytes)} of ${formatBytes(totalBytes)}</td><td>${formatBytes(freeBytes)} free</td></tr>`
  })
  return `<table>
<thead><tr><th>Drive</th><th>Used</th><th>Capacity</th><th>Free</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}

/** The share of a drive in use as df's Use% computes it: used / (used + available). */
function usedShareOf(capacity: { readonly usedBytes: number; readonly freeBytes: number }): number {
  const usable = capacity.usedBytes + capacity.freeBytes
  return usable > 0 ? capacity.usedBytes / usable : 0
}

/**
 * The first `count` of `items` in `order`, as a stable sort would give them, in one pass: at
 * 100,000 buckets sorting them all for a page's top ten took 55-84 ms of the event loop, one pass 1-13 ms.
 */
export function firstInOrder<T>(items: readonly T[], count: number, order: (a: T, b: T) => number): T[] {
  const first: T[] = []
  if (count <= 0) return first
  for (const item of items) {
    if (first.length === count && order(item, first[count - 1] as T) >= 0) continue
    let at = first.length
    while (at > 0 && order(item, first[at - 1] as T) < 0) at--
    first.splice(at, 0, item)
    if (first.length > count) first.pop()
  }
  return first
}

function renderBuckets(status: ExporterStatus, nowMs: number, text: (value: string) => string): string {
  const snapshot = status.usage()
  const nextAtMs = status.nextScanAtMs()
  const next = `<p id="next-scan">${nextAtMs === undefined ? 'A scan is running now.' : `Next scan at ${timestamp(nextAtMs, nowMs)}; buckets created since the last scan appear then.`}</p>`
  if (!snapshot) return `<p class="note">No usage snapshot yet: the first scan is running.</p>\n${next}`
  const measured = snapshot.buckets.filter((bucket) => measuredBytes(bucket) !== undefined)
  const failed = snapshot.buckets.filter((bucket) => !bucket.scanSuccess).length
  const state = snapshot.sourceUp
    ? '<span class="state ok">up</span>'
    : `<span class="state bad">down: ${text(status.sourceFailure() ?? 'no answer at the last scan')}</span>`
  const summary = `<p id="last-scan">Source <code>${text(snapshot.sourceName)}</code> ${state}; last scan finished ${timestamp(snapshot.completedAtMs, nowMs)}; ${snapshot.buckets.length} bucket(s), ${failed} failing.</p>\n${next}`
  if (measured.length === 0) return `${summary}\n<p class="note">No bucket measured.</p>`
  const largest = firstInOrder(
    measured,
    TOP_BUCKETS,
    (a, b) => (measuredBytes(b) ?? 0) - (measuredBytes(a) ?? 0) || a.name.localeCompare(b.name),
  )
  const rows = largest.map((bucket) => {
    const usage = bucket.usage
    const newest = usage?.newestModifiedSeconds
    return `<tr data-bucket="${text(bucket.name)}"><td><code>${text(bucket.name)}</code></td><td>${formatBytes(usage?.bytes ?? 0)}</td><td>${usage?.objects ?? 0}</td><td>${newest === undefined ? '' : `${formatAge(nowMs / 1000 - newest)} ago`}</td><td class="state ${bucket.scanSuccess ? 'ok' : 'bad'}">${bucket.scanSuccess ? 'ok' : 'failed'}</td></tr>`
  })
  const caption =
    measured.length > TOP_BUCKETS ? `The ${TOP_BUCKETS} largest of ${measured.length}.` : 'Largest first.'
  return `${summary}
<table>
<caption>${caption}</caption>
<thead><tr><th>Bucket</th><th>Size</th><th>Objects</th><th>Newest object</th><th>Last scan</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1d1d1f; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #eee; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dt { color: #666; } dd { margin: 0; }
caption { text-align: left; color: #666; }
meter { width: 12rem; height: 1rem; vertical-align: middle; }
.state.ok { color: #1a7f37; } .state.bad { color: #cf222e; } .state.unknown, .note { color: #666; }
`

/** The Content-Security-Policy source that allows exactly this page's inline style. */
export const LANDING_STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB']

export function formatBytes(bytes: number): string {
  let value = bytes
  let unit = 0
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`
}

function timestamp(ms: number, nowMs: number): string {
  const iso = new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')
  const when = ms > nowMs ? `in ${formatAge((ms - nowMs) / 1000)}` : `${formatAge((nowMs - ms) / 1000)} ago`
  return `<time datetime="${iso}">${iso}</time> (${when})`
}

export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 120) return `${s} s`
  if (s < 7200) return `${Math.round(s / 60)} min`
  if (s < 172800) return `${Math.round(s / 3600)} h`
  return `${Math.round(s / 86400)} d`
}
