/*
 * The per-user part of a snapshot (rgw: RGW_USER_METRICS): each user's usage and enabled quota,
 * declared once, so its type and the state file's check derive from the same schema. Not per
 * bucket: BUCKET_METRICS, BUCKETS_TOP_N and the bucket selection do not apply to it; RGW_USERS_MAX
 * bounds it.
 */
import { type Static, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { SETTING_VALUE_MAX_LENGTH } from '../figures/label-values.js'

const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
/** A label value taken from the store: bounded like a bucket's owner. */
const Name = Type.String({ maxLength: SETTING_VALUE_MAX_LENGTH })

const UserUsageSchema = Type.Object({
  /** The user id without its tenant. */
  uid: Name,
  /** '' for the default (global) tenant. */
  tenant: Name,
  /** What the store counts against the user (rgw: the user's stats, as RGW last synced them). */
  bytes: Count,
  objects: Count,
  /** The user quota's limits, only while the quota is enabled and the limit set. */
  quotaMaxBytes: Type.Optional(Count),
  quotaMaxObjects: Type.Optional(Count),
})

/** The most users a snapshot may hold (RGW_USERS_MAX's maximum). */
const USERS_LIMIT = 100_000

export const UserScanSchema = Type.Object({
  /** Sorted by tenant, then uid; each user once. */
  users: Type.Array(UserUsageSchema, { maxItems: USERS_LIMIT }),
  /** Users the store listed past the bound (RGW_USERS_MAX), not measured. */
  omitted: Count,
})

export type UserUsage = Readonly<Static<typeof UserUsageSchema>>
export type UserScan = {
  readonly users: readonly UserUsage[]
  readonly omitted: number
}

const userScanCheck = TypeCompiler.Compile(UserScanSchema)

/** Why a stored per-user part is not one (or names a user twice), or undefined. */
export function userScanProblem(value: unknown): string | undefined {
  if (!userScanCheck.Check(value)) {
    const first = userScanCheck.Errors(value).First()
    return first ? `${first.path || '/'}: ${first.message}` : 'unknown shape'
  }
  const names = new Set(value.users.map((user) => `${user.tenant}$${user.uid}`))
  return names.size === value.users.length ? undefined : 'a user is listed twice'
}

/** Users in the order a snapshot keeps them: by tenant, then uid. */
export function sortUsers(users: UserUsage[]): UserUsage[] {
  const key = (user: UserUsage) => `${user.tenant}\u0000${user.uid}`
  return users.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}
