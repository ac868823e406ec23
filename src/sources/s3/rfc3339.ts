/**
 * S3's times (`2026-01-02T03:04:05.678Z`) in ms since the epoch, read by the SDK's rule
 * (@smithy/core's _parseRfc3339DateTimeWithOffset: the same pattern, the same range checks, a
 * day past the month's end running into the next month, offsets applied) without making a Date:
 * the usual form digit by digit, any other through the SDK's pattern. Undefined where the SDK
 * throws.
 */

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[tT](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([-+])(\d\d):(\d\d)|[zZ])$/

export function rfc3339Ms(text: string): number | undefined {
  return usualRfc3339Ms(text, 0, text.length) ?? parsedMs(text)
}

/**
 * The time in `text` from `from` to `end` when it has the form stores send,
 * 2026-01-02T03:04:05.678Z or 2026-01-02T03:04:05Z, read digit by digit (and in range, from year
 * 100); undefined otherwise, for rfc3339Ms to read the other forms.
 */
export function usualRfc3339Ms(text: string, from: number, end: number): number | undefined {
  const length = end - from
  if (
    !(length === 24 ? text.charCodeAt(from + 19) === 46 && digits(text, from + 20, 3) >= 0 : length === 20) ||
    text.charCodeAt(end - 1) !== 90 ||
    text.charCodeAt(from + 4) !== 45 ||
    text.charCodeAt(from + 7) !== 45 ||
    text.charCodeAt(from + 10) !== 84 ||
    text.charCodeAt(from + 13) !== 58 ||
    text.charCodeAt(from + 16) !== 58
  ) {
    return undefined
  }
  const year = digits(text, from, 4)
  const month = digits(text, from + 5, 2)
  const day = digits(text, from + 8, 2)
  const hours = digits(text, from + 11, 2)
  const minutes = digits(text, from + 14, 2)
  const seconds = digits(text, from + 17, 2)
  if (
    year < 100 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hours < 0 ||
    hours > 23 ||
    minutes < 0 ||
    minutes > 59 ||
    seconds < 0 ||
    seconds > 60
  ) {
    return undefined
  }
  const ms = length === 24 ? digits(text, from + 20, 3) : 0
  return (
    daysFromCivil(year, month, day) * 86_400_000 + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + ms
  )
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), as Date.UTC
 * counts them (a day past the month's end runs into the next month) without its cost.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/** The decimal number of `count` digits at `from` in `text`; -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0
  for (let at = from; at < from + count; at++) {
    const digit = text.charCodeAt(at) - 48
    if (!(digit >= 0 && digit <= 9)) return -1
    value = value * 10 + digit
  }
  return value
}

function parsedMs(text: string): number | undefined {
  const match = RFC3339.exec(text)
  if (!match) return undefined
  const [, year, month, day, hours, minutes, seconds, fraction, sign, offsetHours, offsetMinutes] = match
  const parts = [Number(month), Number(day), Number(hours), Number(minutes), Number(seconds)]
  const [m, d, h, min, s] = parts as [number, number, number, number, number]
  if (m < 1 || m > 12 || d < 1 || d > 31 || h > 23 || min > 59 || s > 60) return undefined
  const ms = Number(fraction) ? Math.round(Number.parseFloat(`0.${fraction}`) * 1000) : 0
  let time = Date.UTC(Number(year), m - 1, d, h, min, s, ms)
  // Date.UTC reads years 0-99 as 1900-1999.
  if (Number(year) < 100) time = new Date(time).setUTCFullYear(Number(year))
  if (sign !== undefined) {
    const offset = Number(offsetHours) * 3_600_000 + Number(offsetMinutes) * 60_000
    time += sign === '-' ? offset : -offset
  }
  return time
}
