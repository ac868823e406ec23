import { SOURCES } from '../sources/list.js'
import type { Env } from './schema.js'

/**
 * Checks of the configuration that depend on which source is chosen (BUCKETS_SOURCE): what the
 * drives default to, variables set but empty that must not fall back to a default pointing
 * elsewhere, and variables of another source that the chosen one never reads.
 */

/**
 * Variables that choose where figures come from. A near-miss of one (BUCKET_SOURCE, DATADIR,
 * S3_ENDPOINT_URL) stops start-up like a mistyped security setting: ignored, it would leave the
 * exporter reading another store (./data, or AWS S3 with the key id sent there) while looking
 * healthy, which is worse than not starting.
 */
export const SOURCE_SELECTING_VARIABLES: ReadonlySet<string> = new Set([
  'BUCKETS_SOURCE',
  'DATA_DIR',
  ...SOURCES.flatMap((source) => source.credentialUrlVariables),
])

/** The source BUCKETS_SOURCE names (the schema allows only the list's names). */
export function chosen(raw: Pick<Env, 'BUCKETS_SOURCE'>) {
  const source = SOURCES.find((candidate) => candidate.name === raw.BUCKETS_SOURCE)
  // The schema allows only the list's names.
  if (!source) throw new Error(`no usage source named ${raw.BUCKETS_SOURCE}`)
  return source
}

/**
 * The drive list as written: DRIVES, or when empty DATA_DIR for a local source and nothing for a
 * remote one (an S3 or RGW exporter's own disk is not the store's capacity).
 */
export function driveListText(raw: Pick<Env, 'BUCKETS_SOURCE' | 'DRIVES' | 'DATA_DIR'>): string {
  if (raw.DRIVES !== '') return raw.DRIVES
  return chosen(raw).local ? raw.DATA_DIR : ''
}

/** One line per variable set but empty that the chosen source refuses to read as unset. */
export function emptyValueProblems(raw: Pick<Env, 'BUCKETS_SOURCE'>, empty: ReadonlySet<string>): string[] {
  return chosen(raw)
    .emptyRefused.filter(({ variable }) => empty.has(variable))
    .map(({ variable, reason }) => `${variable}: ${reason}`)
}

/**
 * The variables among `set` that belong only to sources other than the chosen one: S3_* while
 * BUCKETS_SOURCE=fs is a sign the source was not switched, worth a warning naming them.
 */
export function otherSourceVariables(raw: Pick<Env, 'BUCKETS_SOURCE'>, set: Iterable<string>): string[] {
  const source = chosen(raw)
  const own = new Set(Object.keys(source.env))
  const others = new Set(
    SOURCES.filter((other) => other !== source).flatMap((other) => Object.keys(other.env)),
  )
  return [...set].filter((name) => others.has(name) && !own.has(name)).sort()
}

/** What the start-up line says of the scanner: one look tells which store is read and how. */
export interface StartupSummary {
  readonly source: string
  /** Where the source reads from (a folder, an endpoint URL without credentials, AWS S3). */
  readonly endpoint: string
  /** The bucket selection in words: `every bucket`, a fixed list, globs, a shard. */
  readonly buckets: string
  readonly scanIntervalSeconds: number
  readonly drives: readonly string[]
}

export function startupSummary(raw: Env, drives: readonly string[]): StartupSummary {
  const source = chosen(raw)
  const parts = [raw.BUCKETS === '' ? 'every bucket listed' : `BUCKETS=${raw.BUCKETS}`]
  if (raw.BUCKETS_INCLUDE !== '') parts.push(`BUCKETS_INCLUDE=${raw.BUCKETS_INCLUDE}`)
  if (raw.BUCKETS_EXCLUDE !== '') parts.push(`BUCKETS_EXCLUDE=${raw.BUCKETS_EXCLUDE}`)
  if (raw.SHARD !== '') parts.push(`SHARD=${raw.SHARD}`)
  return {
    source: source.name,
    // Each source's `where` reads only its own variables, all in Env.
    endpoint: (source.where as (settings: Env) => string)(raw),
    buckets: parts.join('; '),
    scanIntervalSeconds: raw.SCAN_INTERVAL_SECONDS,
    drives,
  }
}
