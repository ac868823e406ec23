import { fsSource } from './fs/index.js'
import { rgwSource } from './rgw/index.js'
import { s3Source } from './s3/index.js'

/**
 * Every usage source, the one list: BUCKETS_SOURCE's values (the first is the default), the
 * environment schema, the start-up requirements, the secret variables and docs/configuration.md's table are
 * derived from it. A new source is a folder under sources/ (settings, index, source) and one entry
 * here. Only the sources' declarations are imported: their implementations load when chosen.
 */
export const SOURCES = [fsSource, s3Source, rgwSource] as const

export type SourceName = (typeof SOURCES)[number]['name']

export const SOURCE_NAMES = SOURCES.map((source) => source.name) as unknown as readonly [
  SourceName,
  ...SourceName[],
]

/** BUCKETS_SOURCE's description: each source with its summary. */
export function describeSources(): string {
  const items = SOURCES.map((source) => `\`${source.name}\` (${source.summary})`)
  const last = items.pop()
  return items.length > 0 ? `${items.join(', ')} or ${last}` : `${last}`
}

/** Every source's variables, in list order; a variable shared by sources appears once. */
export const SOURCES_ENV = Object.assign({}, ...SOURCES.map((source) => source.env)) as Intersection<
  (typeof SOURCES)[number]['env']
>

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never

/** Every source's requirements, in list order, each once. */
export const SOURCE_REQUIREMENTS = [...new Set(SOURCES.flatMap((source) => source.requirements))]

export const SOURCE_SECRET_VARIABLES: readonly string[] = [
  ...new Set(SOURCES.flatMap((source) => source.secretVariables)),
]

export const SOURCE_CREDENTIAL_URL_VARIABLES: readonly string[] = [
  ...new Set(SOURCES.flatMap((source) => source.credentialUrlVariables)),
]
