import { shownValue } from './shown-value.js'

/**
 * MinIO's ellipsis syntax for drive lists: `/mnt/disk{1...4}` is four paths, `{01...16}` keeps the
 * zero padding, and several ranges in one pattern expand to their cartesian product.
 */
const RANGE = /\{(\d+)\.\.\.(\d+)\}/

/** Upper bound on one expansion, so a typo like `{1...1000000}` fails instead of eating memory. */
const MAX_EXPANDED_PATHS = 10_000

export class EllipsisError extends Error {}

export function expandEllipsis(pattern: string): string[] {
  const match = RANGE.exec(pattern)
  if (!match) {
    if (/\{|\}|\.\.\./.test(pattern)) {
      throw new EllipsisError(`malformed ellipsis in ${shownValue(pattern)} (expected {N...M} with N <= M)`)
    }
    return [pattern]
  }
  const [whole, fromText = '', toText = ''] = match
  const from = Number(fromText)
  const to = Number(toText)
  if (from > to) throw new EllipsisError(`range {${fromText}...${toText}} runs backwards`)
  if (to - from + 1 > MAX_EXPANDED_PATHS) {
    throw new EllipsisError(
      `range {${fromText}...${toText}} expands to more than ${MAX_EXPANDED_PATHS} paths`,
    )
  }
  // Zero padding applies when the bound is written with a leading zero, as in MinIO.
  const width = fromText.length > 1 && fromText.startsWith('0') ? fromText.length : 0
  const head = pattern.slice(0, match.index)
  const tails = expandEllipsis(pattern.slice(match.index + whole.length))
  const out: string[] = []
  for (let n = from; n <= to; n++) {
    const label = width ? String(n).padStart(width, '0') : String(n)
    for (const tail of tails) {
      out.push(head + label + tail)
      if (out.length > MAX_EXPANDED_PATHS) {
        throw new EllipsisError(`${shownValue(pattern)} expands to more than ${MAX_EXPANDED_PATHS} paths`)
      }
    }
  }
  return out
}

/** Splits a comma-separated list and expands each entry; duplicates are kept once, in order. */
export function expandDriveList(list: string): string[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  return [...new Set(entries.flatMap(expandEllipsis))]
}
