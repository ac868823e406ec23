import type { TProperties } from '@sinclair/typebox'
import type { Logger } from 'pino'
import type { OptInBucketGroup } from '../config/bucket-groups.js'
import type { Requirement } from '../config/schema-helpers.js'
import type { UsageSource } from './types.js'

/** Whether a source gives an opt-in group's figures, or why it cannot. */
export type GroupSupport = 'given' | { readonly notGiven: string }

/** Why a source cannot give `group`'s figures, or undefined when it gives them. */
export function notGivenReason(
  groups: Readonly<Record<OptInBucketGroup, GroupSupport>>,
  group: OptInBucketGroup,
): string | undefined {
  const support = groups[group]
  return support === 'given' ? undefined : support.notGiven
}

/**
 * What a source declares about itself, in its folder's index.ts: the one entry of the source list
 * (./list.ts) from which BUCKETS_SOURCE's values, the environment schema, the start-up checks and
 * docs/configuration.md's table are derived. Declarations only: `create` imports the source's
 * implementation when it is chosen, so heavy dependencies (the AWS SDK, undici) stay unloaded.
 *
 * `Settings` is what `create` reads of the configuration (its own variables and any shared ones),
 * `Variables` what its requirements read, `Env` the schema of its variables.
 */
export interface SourceDefinition<Name extends string, Settings, Variables, Env extends TProperties> {
  /** BUCKETS_SOURCE's value and the `source` label of source_up. */
  readonly name: Name
  /** How BUCKETS_SOURCE's description presents it: "`name` (summary)". */
  readonly summary: string
  /** Its environment variables (shared ones may appear in several sources: same schema object). */
  readonly env: Env
  /** Variables it needs set in some mode, each with the mode in words. */
  readonly requirements: readonly Requirement<Variables>[]
  /** Variables never echoed: not in error messages, logs or pages. */
  readonly secretVariables: readonly string[]
  /** URL variables that may carry credentials: shown only without them. */
  readonly credentialUrlVariables: readonly string[]
  /**
   * Whether it reads the local DATA_DIR: only then is DATA_DIR created, and its filesystem the
   * drive reported when DRIVES is empty (a remote source reports no drive of this host by default).
   */
  readonly local: boolean
  /**
   * Variables that, set but empty while this source is chosen, refuse start-up instead of meaning
   * "unset": their default points somewhere else (an empty S3_ENDPOINT would mean AWS S3).
   */
  readonly emptyRefused: readonly { readonly variable: string; readonly reason: string }[]
  /**
   * Every opt-in BUCKET_METRICS group, each either `'given'` or with why the source cannot give
   * its figures ("it lists no keys"): a complete table, so a new group cannot be left unsaid for
   * a source. Named in BUCKET_METRICS, or their variables set, a group not given makes start-up
   * say nothing will come of it.
   */
  readonly bucketGroups: Readonly<Record<OptInBucketGroup, GroupSupport>>
  /** Where it reads from, as the start-up line shows it (without credentials). */
  where(settings: Settings): string
  /** The source, its implementation imported now. */
  create(settings: Settings, logger: Logger): Promise<UsageSource>
}

/** Declares a source; the identity, for type inference of its name and settings. */
export function defineSource<const Name extends string, Settings, Env extends TProperties, Variables = never>(
  definition: SourceDefinition<Name, Settings, Variables, Env>,
): SourceDefinition<Name, Settings, Variables, Env> {
  return definition
}

/** For a source that needs no variable set. */
export const NO_REQUIREMENTS: readonly Requirement<unknown>[] = []
