/**
 * RGW's users through the admin API (RGW_USER_METRICS): the user ids, paged
 * (`GET /admin/user?list&max-entries=&marker=`), then each user's stats and quota
 * (`GET /admin/user?uid=&stats=true`), both with the admin cap `users=read`. Answers are checked
 * like the bucket stats: a figure that is not a whole count refuses the answer. A user's answer
 * also holds its access and secret keys: only the figures below are read from it, nothing else is
 * kept, logged or shown.
 *
 * The stats are RGW's per-user counters, the ones user quotas are enforced against: RGW refreshes
 * them from the buckets' counters on its own schedule (`rgw_user_quota_bucket_sync_interval`,
 * and `radosgw-admin user stats --sync-stats` forces it), so they may lag the bucket figures.
 */
import { boundedValue } from '../../figures/label-values.js'
import { sortUsers, type UserScan, type UserUsage } from '../../record/user-usage.js'
import { count, isObject, limit, RgwAdminResponseError } from './stats.js'

/** One page of `GET /admin/user?list`. */
export interface RgwUserPage {
  /** `uid`, or `tenant$uid` for a user of a tenant. */
  readonly ids: readonly string[]
  /** Where the next page starts; undefined on the last page. */
  readonly marker: string | undefined
}

export function parseUserPage(value: unknown): RgwUserPage {
  if (!isObject(value) || !Array.isArray(value.keys)) {
    throw new RgwAdminResponseError('user list: expected an object with a keys array')
  }
  const ids = value.keys.map((id, index) => {
    if (typeof id !== 'string' || id === '') {
      throw new RgwAdminResponseError(`user list.keys[${index}]: expected a user id`)
    }
    return id
  })
  // RGW writes truncated as a boolean here (and as a string in /admin/metadata).
  const truncated = value.truncated === true || value.truncated === 'true'
  const marker =
    truncated && typeof value.marker === 'string' && value.marker !== '' ? value.marker : undefined
  if (truncated && marker === undefined) {
    throw new RgwAdminResponseError('user list: truncated without a marker to go on from')
  }
  return { ids, marker }
}

/** `GET /admin/user?uid=&stats=true` for `id`: its figures only (never its keys). */
export function parseUserInfo(value: unknown, id: string): UserUsage {
  const where = `user ${boundedValue(id)}`
  if (!isObject(value)) throw new RgwAdminResponseError(`${where}: expected an object`)
  if (typeof value.user_id !== 'string' || value.user_id === '') {
    throw new RgwAdminResponseError(`${where}.user_id: expected a user id`)
  }
  if (!isObject(value.stats))
    throw new RgwAdminResponseError(`${where}.stats: expected an object (was stats=true sent?)`)
  const quota = isObject(value.user_quota) ? value.user_quota : undefined
  const enabled = quota?.enabled === true
  const maxBytes = enabled ? limit(quota?.max_size, `${where}.user_quota.max_size`) : undefined
  const maxObjects = enabled ? limit(quota?.max_objects, `${where}.user_quota.max_objects`) : undefined
  return {
    uid: boundedValue(value.user_id),
    tenant: boundedValue(typeof value.tenant === 'string' ? value.tenant : ''),
    bytes: count(value.stats.size, `${where}.stats.size`),
    objects: count(value.stats.num_objects, `${where}.stats.num_objects`),
    ...(maxBytes !== undefined ? { quotaMaxBytes: maxBytes } : {}),
    ...(maxObjects !== undefined ? { quotaMaxObjects: maxObjects } : {}),
  }
}

/** What reading the users needs of the admin client. */
export interface UserReader {
  listUsers(page: { marker?: string; maxEntries: number }, signal?: AbortSignal): Promise<RgwUserPage>
  userInfo(id: string, signal?: AbortSignal): Promise<UserUsage>
}

export interface ReadUsersOptions {
  /** RGW_USERS_MAX: users past it are counted, not measured. */
  readonly maxUsers: number
  readonly signal: AbortSignal
  /** Ids per page of the list (RGW serves at most 1,000). */
  readonly pageSize?: number
  /** User answers read at once. */
  readonly concurrency?: number
}

/** Past the bound, the list is read this many more pages to count the users left out, no more. */
const COUNTING_PAGES = 100

/**
 * The first `maxUsers` users of RGW's list, measured, and how many more it listed (counted for
 * some COUNTING_PAGES pages past the bound, then no further). A user deleted between the list and its answer is left out.
 */
export async function readUsers(client: UserReader, options: ReadUsersOptions): Promise<UserScan> {
  const pageSize = options.pageSize ?? 1000
  const ids: string[] = []
  let omitted = 0
  let marker: string | undefined
  // Every loop bounded: the pages the bound needs (RGW may answer fewer ids than asked), and
  // COUNTING_PAGES more to count what is left out.
  const maxPages = Math.ceil(options.maxUsers / pageSize) * 2 + COUNTING_PAGES
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await client.listUsers(
      { ...(marker === undefined ? {} : { marker }), maxEntries: pageSize },
      options.signal,
    )
    for (const id of page.ids) {
      if (ids.length < options.maxUsers) ids.push(id)
      else omitted++
    }
    // A marker that does not move would list the same page for ever.
    if (page.marker === undefined || page.marker === marker) break
    marker = page.marker
  }
  const users: UserUsage[] = []
  let next = 0
  const lane = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string
      try {
        users.push(await client.userInfo(id, options.signal))
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'NoSuchUser') throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, ids.length) }, lane))
  return { users: sortUsers(dedupe(users)), omitted }
}

/** One entry per user (a list that named a user twice must not give duplicate series). */
function dedupe(users: UserUsage[]): UserUsage[] {
  const seen = new Map<string, UserUsage>()
  for (const user of users) seen.set(`${user.tenant}$${user.uid}`, user)
  return [...seen.values()]
}
