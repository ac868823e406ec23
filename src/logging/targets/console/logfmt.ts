/**
 * pino's entries as logfmt, the format of node_exporter and the Prometheus toolkit (go-kit's
 * logfmt, slog's TextHandler): `time=... level=info msg="usage scan finished" buckets=3`. pino
 * writes one JSON line an entry (already redacted by the logger's streamWrite hook); each is
 * rewritten as one logfmt line. Nested objects are flattened with dots (`warning.code=...`), as
 * slog prints a group; arrays are written as JSON in one quoted value. About 40 lines, written
 * here: the npm `logfmt` packages neither flatten nor quote as the Go encoders do.
 */

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}

/** A key as logfmt allows it: no space, `=` or `"` (replaced by `_`). */
const key = (name: string): string => name.replace(/[\s="]/g, '_') || '_'

const hasControl = (text: string): boolean => {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

/** A value bare when it can be, quoted with Go's escapes otherwise. */
function value(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : raw === null ? 'null' : String(raw)
  if (text !== '' && !/[\s="\\]/.test(text) && !hasControl(text)) return text
  return JSON.stringify(text)
}

function pairs(entry: Readonly<Record<string, unknown>>, prefix: string, out: string[]): void {
  for (const [name, field] of Object.entries(entry)) {
    const path = prefix + key(name)
    if (field !== null && typeof field === 'object' && !Array.isArray(field))
      pairs(field as Record<string, unknown>, `${path}.`, out)
    else out.push(`${path}=${value(Array.isArray(field) ? JSON.stringify(field) : field)}`)
  }
}

/** One pino JSON line as one logfmt line (time, level and msg first); a line that is not JSON as is. */
function logfmtLine(jsonLine: string): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>
  } catch {
    return jsonLine
  }
  const { time, level, msg, ...rest } = entry
  const out: string[] = []
  if (typeof time === 'number') out.push(`time=${new Date(time).toISOString()}`)
  if (level !== undefined) out.push(`level=${value(LEVEL_NAMES[level as number] ?? level)}`)
  if (msg !== undefined) out.push(`msg=${value(msg)}`)
  pairs(rest, '', out)
  return `${out.join(' ')}\n`
}

/** A destination for pino that writes each entry to `output` as logfmt. */
export function logfmtDestination(output: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write: (line) => {
      output.write(logfmtLine(line))
    },
  }
}
