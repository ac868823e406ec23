import { createHash } from 'node:crypto'
import type { SecretRedactor } from '../logging/secret-redactor.js'
import { failingBuckets } from './bucket-view.js'
import { renderBucketList } from './landing/buckets.js'
import { renderDrives } from './landing/drives.js'
import { escapeHtml, timestamp } from './landing/format.js'
import { renderRunningScan } from './landing/progress.js'
import type { ListProblem, ListState } from './landing/query.js'
import type { ExporterStatus } from './status.js'

export interface LandingPageInput {
  readonly version: string
  readonly nodeVersion: string
  readonly metricsPath: string
  readonly status: ExporterStatus
  /** Blanks the secrets out of any text shown (error messages may quote them, in any encoding). */
  readonly redactor: SecretRedactor
  readonly nowMs: number
  /** The bucket list the query asks for (landing/query.ts: listStateOf), or why it cannot be listed. */
  readonly list: ListState | ListProblem
}

/**
 * The landing page: what runs, the state of each source, each drive with a capacity bar, every
 * bucket (sorted, filtered, a page at a time) with a treemap of where the bytes went, and the
 * last scan. Built from the exporter's last scrape and scan; self-contained HTML (no script, no
 * external file). Every store-given text goes through the redactor and is escaped.
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
<nav><a href="${escapeHtml(input.metricsPath)}">Metrics</a> · <a href="/healthz">Health</a> · <a href="/readyz">Readiness</a> · JSON API: <a href="/api/v1/buckets">buckets</a>, <a href="/api/v1/drives">drives</a>, <a href="/api/v1/status">status</a> · <a href="/api/openapi.json">OpenAPI document</a></nav>
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
${renderDrives(status.drives(), input.metricsPath, text)}
</section>
<section id="buckets">
<h2>Buckets</h2>
${renderBuckets(input, text)}
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

function renderBuckets(input: LandingPageInput, text: (value: string) => string): string {
  const { status, nowMs } = input
  const snapshot = status.usage()
  const nextAtMs = status.nextScanAtMs()
  const running = status.scanProgress?.()
  const next = running
    ? renderRunningScan(running, nowMs, text)
    : `<p id="next-scan">${nextAtMs === undefined ? 'A scan is running now.' : `Next scan at ${timestamp(nextAtMs, nowMs)}; buckets created since the last scan appear then.`}</p>`
  if (!snapshot) return `<p class="note">No usage snapshot yet: the first scan is running.</p>\n${next}`
  const failed = failingBuckets(snapshot.buckets)
  const state = snapshot.sourceUp
    ? '<span class="state ok">up</span>'
    : `<span class="state bad">down: ${text(status.sourceFailure() ?? 'no answer at the last scan')}</span>`
  return `<p id="last-scan">Source <code>${text(snapshot.sourceName)}</code> ${state}; last scan finished ${timestamp(snapshot.completedAtMs, nowMs)}; ${snapshot.buckets.length} bucket(s), ${failed} failing.</p>
${next}
${renderBucketList({ snapshot, list: input.list, nowMs, redact: input.redactor.redact })}`
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1d1d1f; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #eee; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dt { color: #666; } dd { margin: 0; }
caption { text-align: left; color: #666; }
meter, progress { width: 12rem; height: 1rem; vertical-align: middle; }
.state.ok { color: #1a7f37; } .state.bad { color: #cf222e; } .state.unknown, .note { color: #666; }
.problem { color: #cf222e; } tfoot th, tfoot td { font-weight: 600; border-top: 2px solid #ccc; }
th a { color: inherit; } form { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; margin: 1rem 0; }
.pager { margin: .8rem 0; }
svg.treemap { width: 100%; height: auto; display: block; }
.treemap .tile { stroke: #fff; stroke-width: 1; } .treemap .others { fill: #b5b5b5; }
.treemap .prefix { fill: #fff; fill-opacity: .1; stroke: #fff; stroke-opacity: .45; stroke-width: .5; } .treemap .prefix.p1 { fill-opacity: .22; }
.treemap text { font-size: 12px; fill: #fff; pointer-events: none; } .treemap .others text { fill: #1d1d1f; }
.treemap .c0 { fill: #4e79a7; } .treemap .c1 { fill: #e15759; } .treemap .c2 { fill: #59a14f; } .treemap .c3 { fill: #b07aa1; } .treemap .c4 { fill: #f28e2b; }
.treemap .c5 { fill: #499894; } .treemap .c6 { fill: #9c755f; } .treemap .c7 { fill: #d37295; } .treemap .c8 { fill: #a0841c; } .treemap .c9 { fill: #7d5fb2; }
`

/** The Content-Security-Policy source that allows exactly this page's inline style. */
export const LANDING_STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`
