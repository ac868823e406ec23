/** How the landing page writes text, numbers, sizes and times. */

export function escapeHtml(text: string): string {
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

/**
 * Made at the first page, not at load: a NumberFormat loads ICU's data, ~8 MB of resident memory
 * (measured on Node 26) that a process serving only /metrics never needs.
 */
let grouped: Intl.NumberFormat | undefined

/** A whole number with thousands separators: 1,234,567. */
export function formatCount(count: number): string {
  grouped ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
  return grouped.format(count)
}

/** A size as people read it, with the exact byte count a hover away: `<span title="6,000 bytes">5.9 KiB</span>`. */
export function sizeHtml(bytes: number): string {
  return `<span class="size" title="${formatCount(bytes)} bytes">${formatBytes(bytes)}</span>`
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`
}

export function timestamp(ms: number, nowMs: number): string {
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
