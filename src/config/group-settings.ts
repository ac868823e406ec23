/*
 * Settings that do nothing because BUCKET_METRICS leaves their group out or the source cannot give
 * it, and groups named that the source cannot give (the operator's first hour: no silent traps):
 * start-up warns naming them, check-config prints the same line.
 */

import { notGivenReason } from '../sources/definition.js'
import {
  bucketMetricWords,
  OPT_IN_BUCKET_GROUPS,
  type OptInBucketGroup,
  scanFoldsOf,
} from './bucket-groups.js'
import type { Env } from './schema.js'
import { chosen, otherSourceVariables } from './source-checks.js'

/**
 * The variables only an opt-in group reads, with the value that turns their figures off where one
 * does (set to it, a variable is no trap). Set otherwise while their group is off, nothing reads
 * them: start-up says so.
 */
export const GROUP_VARIABLES: Readonly<
  Record<OptInBucketGroup, readonly { readonly variable: string; readonly off?: string | number | boolean }[]>
> = {
  age: [],
  hidden: [{ variable: 'MULTIPART_STALE_DAYS' }, { variable: 'MULTIPART_PARTS_MAX_UPLOADS', off: 0 }],
  prefixes: [
    { variable: 'PREFIX_DEPTH', off: 0 },
    { variable: 'PREFIX_TOP_K', off: 0 },
    { variable: 'PREFIX_DELIMITER' },
  ],
  info: [{ variable: 'S3_BUCKET_SETTINGS', off: false }, { variable: 'BUCKET_TAG_LABELS' }],
  index: [{ variable: 'RGW_SAFE_MAX_OBJECTS_PER_SHARD' }, { variable: 'RGW_SHARD_WARNING_PERCENT' }],
  usage_log: [],
}

/**
 * Variables set for an opt-in group that nothing reads, by group: BUCKET_METRICS leaves the group
 * out, or the chosen source cannot give its figures at all (`notGiven` then says why).
 */
export interface UnusedGroupSettings {
  readonly group: OptInBucketGroup
  readonly variables: readonly string[]
  readonly notGiven?: string
}

/** An opt-in group named in BUCKET_METRICS that the chosen source cannot give, and why. */
export interface GroupNotGiven {
  readonly group: OptInBucketGroup
  readonly reason: string
}

/**
 * The groups whose variables are set (`set`: the names given, by any means) to something but their
 * off value while BUCKETS_SOURCE cannot give the group or BUCKET_METRICS leaves it out; not those
 * of another source, which start-up names already (source-checks.ts).
 */
export function unusedGroupSettings(raw: Env, set: ReadonlySet<string>): UnusedGroupSettings[] {
  const folds = scanFoldsOf(raw.BUCKET_METRICS)
  const groups = chosen(raw).bucketGroups
  const ignored = otherSourceVariables(raw, set)
  const values: Readonly<Record<string, unknown>> = raw
  return OPT_IN_BUCKET_GROUPS.flatMap((group) => {
    const reason = notGivenReason(groups, group)
    if (folds[group] && reason === undefined) return []
    const variables = GROUP_VARIABLES[group]
      .filter(
        ({ variable, off }) => set.has(variable) && !ignored.includes(variable) && values[variable] !== off,
      )
      .map(({ variable }) => variable)
    if (variables.length === 0) return []
    return [reason === undefined ? { group, variables } : { group, variables, notGiven: reason }]
  })
}

/**
 * The opt-in groups BUCKET_METRICS names (by name: `all` means whatever the source gives) that
 * BUCKETS_SOURCE cannot give: their families would stay empty, which start-up says.
 */
export function groupsNamedNotGiven(raw: Pick<Env, 'BUCKETS_SOURCE' | 'BUCKET_METRICS'>): GroupNotGiven[] {
  const groups = chosen(raw).bucketGroups
  const named = new Set(bucketMetricWords(raw.BUCKET_METRICS))
  return OPT_IN_BUCKET_GROUPS.flatMap((group) => {
    const reason = notGivenReason(groups, group)
    return named.has(group) && reason !== undefined ? [{ group, reason }] : []
  })
}

/** The one line that names them, for the log and check-config. */
export function unusedGroupWarning(
  unused: UnusedGroupSettings,
  config: Pick<Env, 'BUCKETS_SOURCE' | 'BUCKET_METRICS'>,
): string {
  const them = unused.variables.length > 1 ? 'them' : 'it'
  const variables = unused.variables.join(', ')
  if (unused.notGiven !== undefined)
    return `${variables} set, but BUCKETS_SOURCE=${config.BUCKETS_SOURCE} gives no ${unused.group} figures (${unused.notGiven}), so nothing reads ${them}: remove ${them}`
  const asked = config.BUCKET_METRICS.trim() === '' ? 'default' : config.BUCKET_METRICS
  return `${variables} set, but BUCKET_METRICS leaves out the ${unused.group} group, so nothing reads ${them}: add ${unused.group} (BUCKET_METRICS=${asked},${unused.group}) or remove ${them}`
}

/** The line for a group named that the source cannot give. */
export function groupNotGivenWarning(notGiven: GroupNotGiven, source: string): string {
  return `BUCKET_METRICS names ${notGiven.group}, but BUCKETS_SOURCE=${source} gives none of its figures (${notGiven.reason}): its families stay empty`
}
