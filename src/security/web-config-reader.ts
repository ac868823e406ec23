/**
 * Strict reading of a parsed YAML document, as exporter-toolkit reads the web configuration file
 * (Go's yaml.UnmarshalStrict): every key known, every value of its type. Each problem is one
 * line naming the key by its path (`tls_server_config.cert_fil`), collected so that one start
 * reports them all.
 */
export class StrictReader {
  readonly problems: string[] = []

  /** One line about `path`: `tls_server_config.min_version: expected one of ...`. */
  refuse(path: string, reason: string): undefined {
    this.problems.push(`${path}: ${reason}`)
    return undefined
  }

  /**
   * A mapping's entries, each key among `known`; a key in `unsupported` is refused with its reason
   * (a part of the format this exporter does not implement), any other with the known ones listed.
   * Null (a key given no value) reads as an empty mapping, as Go reads it.
   */
  mapping(
    value: unknown,
    path: string,
    known: readonly string[],
    unsupported: Readonly<Record<string, string>> = {},
  ): Record<string, unknown> {
    if (value === null || value === undefined) return {}
    const entries = this.anyMapping(value, path)
    if (!entries) return {}
    const accepted: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(entries)) {
      const where = path === '' ? key : `${path}.${key}`
      const reason = unsupported[key]
      if (reason !== undefined) this.refuse(where, reason)
      else if (!known.includes(key)) this.refuse(where, `unknown key; expected one of ${known.join(', ')}`)
      else accepted[key] = item
    }
    return accepted
  }

  /** A mapping whose keys are data (user names, header names): checked by the caller. */
  anyMapping(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value === null || value === undefined) return {}
    if (typeof value !== 'object' || Array.isArray(value) || Buffer.isBuffer(value))
      return this.refuse(path || 'the file', 'expected a mapping of keys to values')
    return value as Record<string, unknown>
  }

  /** A string, or undefined when absent, null or empty (Go's zero value: not set). */
  string(value: unknown, path: string): string | undefined {
    if (value === null || value === undefined || value === '') return undefined
    if (typeof value !== 'string') return this.refuse(path, 'expected a string')
    return value
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === null || value === undefined) return undefined
    if (typeof value !== 'boolean') return this.refuse(path, 'expected true or false')
    return value
  }

  /** One of `choices` (case as written in the format), or undefined when absent. */
  choice<T extends string>(value: unknown, path: string, choices: readonly T[]): T | undefined {
    const text = this.string(value, path)
    if (text === undefined) return undefined
    if ((choices as readonly string[]).includes(text)) return text as T
    return this.refuse(path, `${JSON.stringify(text)} is not one of ${choices.join(', ')}`)
  }

  /** A list of strings, each among `choices`; undefined when absent. */
  choices<T extends string>(value: unknown, path: string, choices: readonly T[]): T[] | undefined {
    if (value === null || value === undefined) return undefined
    if (!Array.isArray(value)) return this.refuse(path, 'expected a list')
    const chosen: T[] = []
    value.forEach((item, index) => {
      const one = this.choice(item, `${path}[${index}]`, choices)
      if (one !== undefined) chosen.push(one)
    })
    return chosen
  }
}
