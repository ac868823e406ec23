import type { RoundProgressView } from '../../scanning/round-progress.js'
import { escapeHtml, formatBytes, formatCount, timestamp } from './format.js'

/**
 * The running scan round in a line of text, as the landing page and `scan --once`'s bar show it:
 * `12 of 53 buckets · 1,204,512 objects · 1.2 TiB · 30,080 objects/s · 18,311 requests`. Bucket
 * names are not in it (the caller adds them, each its own way: escaped, or cut to the terminal).
 */
export function progressSummary(view: RoundProgressView): string {
  const parts = [
    view.buckets === undefined
      ? view.source === 'rgw'
        ? 'reading bucket stats'
        : 'listing buckets'
      : `${formatCount(view.bucketsDone)} of ${formatCount(view.buckets)} buckets`,
    `${formatCount(view.objects)} objects`,
    formatBytes(view.bytes),
    `${formatCount(view.objectsPerSecond)} objects/s`,
  ]
  if (view.failed > 0) parts.splice(1, 0, `${formatCount(view.failed)} failed`)
  if (view.requests !== undefined) parts.push(`${formatCount(view.requests)} requests`)
  if (view.phase === 'finishing') parts.push('finishing')
  return parts.join(' · ')
}

/** The landing page's paragraph on the running round: a progress bar, the figures, the buckets in progress. */
export function renderRunningScan(
  view: RoundProgressView,
  nowMs: number,
  text: (value: string) => string,
): string {
  const bar =
    view.buckets === undefined
      ? '<progress></progress>'
      : `<progress value="${view.bucketsDone}" max="${Math.max(1, view.buckets)}"></progress>`
  const names = view.inProgress.map((name) => `<code>${text(name)}</code>`).join(', ')
  const more = view.inProgressCount - view.inProgress.length
  const measuring =
    view.inProgressCount === 0
      ? ''
      : `; measuring ${names}${more > 0 ? ` and ${formatCount(more)} more` : ''}`
  return `<p id="scan-progress">A scan is running: started ${timestamp(view.startedAtMs, nowMs)}. ${bar} ${escapeHtml(progressSummary(view))}${measuring}.</p>`
}
