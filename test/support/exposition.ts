/**
 * A small parser of the Prometheus text format (and OpenMetrics), for asserting on real scrapes.
 * Strict enough to catch malformed output: an unparsable line throws.
 */
export interface ParsedSample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface ParsedExposition {
  readonly samples: readonly ParsedSample[]
  readonly help: ReadonlyMap<string, string>
  readonly types: ReadonlyMap<string, string>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$/

export function parseExposition(text: string): ParsedExposition {
  const samples: ParsedSample[] = []
  const help = new Map<string, string>()
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '' || line === '# EOF') continue
    if (line.startsWith('# HELP ')) {
      const [name = '', ...rest] = line.slice(7).split(' ')
      help.set(name, rest.join(' '))
      continue
    }
    if (line.startsWith('# TYPE ')) {
      const [name = '', type = ''] = line.slice(7).split(' ')
      types.set(name, type)
      continue
    }
    if (line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`unparsable exposition line: ${line}`)
    samples.push({
      name: match[1] as string,
      labels: parseLabels(match[3] ?? ''),
      value: parseValue(match[4] as string),
    })
  }
  return { samples, help, types }
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {}
  let index = 0
  while (index < text.length) {
    const eq = text.indexOf('=', index)
    if (eq < 0 || text[eq + 1] !== '"') throw new Error(`bad labels: {${text}}`)
    const name = text.slice(index, eq).trim()
    let value = ''
    let cursor = eq + 2
    for (; cursor < text.length && text[cursor] !== '"'; cursor++) {
      if (text[cursor] === '\\') {
        const next = text[++cursor]
        value += next === 'n' ? '\n' : next
      } else {
        value += text[cursor]
      }
    }
    if (text[cursor] !== '"') throw new Error(`unterminated label value: {${text}}`)
    labels[name] = value
    index = cursor + 1
    if (text[index] === ',') index++
  }
  return labels
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY
  if (text === '-Inf') return Number.NEGATIVE_INFINITY
  if (text === 'NaN') return Number.NaN
  const value = Number(text)
  if (Number.isNaN(value)) throw new Error(`bad sample value: ${text}`)
  return value
}

/** The one sample with this name and (a subset of) these labels; throws when none or several match. */
export function sampleValue(
  exposition: ParsedExposition,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const found = findSamples(exposition, name, labels)
  if (found.length !== 1) {
    throw new Error(`expected one sample ${name}${JSON.stringify(labels)}, found ${found.length}`)
  }
  return (found[0] as ParsedSample).value
}

export function findSamples(
  exposition: ParsedExposition,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): ParsedSample[] {
  return exposition.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
}

/** The significant digits of a value as an exposition prints it (`0.0125` has 3, `-1.5e-7` 2). */
export function significantDigits(printed: string): number {
  return printed
    .replace(/^-|e.*$/g, '')
    .replace('.', '')
    .replace(/^0+/, '').length
}
