import type { DriveStatus } from '../status.js'
import { escapeHtml, percent, sizeHtml } from './format.js'

/** The share of a drive in use as df's Use% computes it: used / (used + available). */
function usedShareOf(capacity: { readonly usedBytes: number; readonly freeBytes: number }): number {
  const usable = capacity.usedBytes + capacity.freeBytes
  return usable > 0 ? capacity.usedBytes / usable : 0
}

/**
 * Each drive with a capacity bar and its figures. Used + free falls short of the capacity by the
 * blocks the filesystem reserves (for root: ext4's 5% by default; statfs bfree - bavail), which df's
 * Use% counts in neither: the table shows them, so the three figures add up to the capacity.
 */
export function renderDrives(
  drives: readonly DriveStatus[],
  metricsPath: string,
  text: (value: string) => string,
): string {
  if (drives.length === 0) {
    return '<p class="note" id="no-drives">No drive configured (<code>DRIVES</code> is empty and the source is remote): no capacity is reported.</p>'
  }
  if (drives.every((drive) => drive.state === undefined)) {
    return `<p class="note">${drives.length} drive(s) configured; their state appears after the first scrape of <a href="${escapeHtml(metricsPath)}">${escapeHtml(metricsPath)}</a>.</p>`
  }
  const rows = drives.map(({ path, state }) => {
    const name = `<td><code>${text(path)}</code></td>`
    if (state === undefined)
      return `<tr data-drive="${text(path)}">${name}<td class="state unknown" colspan="4">not probed yet</td></tr>`
    if (!state.online) {
      return `<tr data-drive="${text(path)}">${name}<td class="state bad" colspan="4">offline: ${text(state.reason)}</td></tr>`
    }
    const { totalBytes, usedBytes, freeBytes } = state.capacity
    const usedShare = usedShareOf(state.capacity)
    // The bar's whole is what df's Use% divides by, so the bar and the figure agree.
    const usable = usedBytes + freeBytes
    const reserved = Math.max(0, totalBytes - usable)
    return `<tr data-drive="${text(path)}">${name}<td class="bar"><meter min="0" max="${usable}" low="${Math.round(usable * 0.85)}" high="${Math.round(usable * 0.95)}" optimum="0" value="${usedBytes}" title="${percent(usedShare)} used">${percent(usedShare)} used</meter> ${percent(usedShare)} used</td><td class="used">${sizeHtml(usedBytes)} of ${sizeHtml(totalBytes)}</td><td class="free">${sizeHtml(freeBytes)} free</td><td class="reserved">${reserved > 0 ? `${sizeHtml(reserved)} reserved` : 'none reserved'}</td></tr>`
  })
  return `<table>
<caption>Used + free + reserved = capacity. Use% is used / (used + free), as df computes it: the blocks the filesystem reserves for root are in neither.</caption>
<thead><tr><th>Drive</th><th>Used</th><th>Capacity</th><th>Free</th><th>Reserved</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}
