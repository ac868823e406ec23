/*
 * Settings that do nothing because BUCKET_METRICS leaves their group out (the operator's first
 * hour: no silent traps): start-up warns naming them, check-config prints the same line.
 */
import { OPT_IN_BUCKET_GROUPS, type OptInBucketGroup, scanFoldsOf } from './bucket-groups.js'
import type { Env } from './schema.js'
import { otherSourceVariables } from './source-checks.js'

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

/** Variables set for an opt-in group that BUCKET_METRICS leaves out, by group. */
export interface UnusedGroupSettings {
  readonly group: OptInBucketGroup
  readonly variables: readonly string[]
}

/**
 * The groups whose variables are set (`set`: the names given, by any means) to something but their
 * off value while BUCKET_METRICS leaves the group out; not those of another source, which
 * start-up names already (source-checks.ts).
 */
export function unusedGroupSettings(raw: Env, set: ReadonlySet<string>): UnusedGroupSettings[] {
  const folds = scanFoldsOf(raw.BUCKET_METRICS)
  const ignored = otherSourceVariables(raw, set)
  const values: Readonly<Record<string, unknown>> = raw
  return OPT_IN_BUCKET_GROUPS.flatMap((group) => {
    if (folds[group]) return []
    const variables = GROUP_VARIABLES[group]
      .filter(
        ({ variable, off }) => set.has(variable) && !ignored.includes(variable) && values[variable] !== off,
      )
      .map(({ variable }) => variable)
    return variables.length > 0 ? [{ group, variables }] : []
  })
}

/** The one line that names them, for the log and check-config. */
export function unusedGroupWarning(unused: UnusedGroupSettings, bucketMetrics: string): string {
  const asked = bucketMetrics.trim() === '' ? 'default' : bucketMetrics
  const them = unused.variables.length > 1 ? 'them' : 'it'
  return `${unused.variables.join(', ')} set, but BUCKET_METRICS leaves out the ${unused.group} group, so nothing reads ${them}: add ${unused.group} (BUCKET_METRICS=${asked},${unused.group}) or remove ${them}`
}
